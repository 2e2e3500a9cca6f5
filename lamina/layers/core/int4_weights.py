"""What the int4 layers share (Keras 3's layout): the packed int8 variable, and the scale,
zero point and group index of a weight quantized per channel or in groups.

A 2-D weight quantized along axis ``reduce`` keeps, per channel (``block_size`` None or
-1), one abs-max scale per entry of the other axis; in groups, ``ceil(n / block_size)``
scales and zero points per entry, and ``g_idx`` (float32, as Keras stores it) says which
group each of the ``n`` reduced positions belongs to.
"""
from __future__ import annotations

import math

from ... import ops
from ...quantizers.int4_packing import unpack_int4
from ...quantizers.quantization_config import is_sub_channel


def packed_weight(layer, name: str, shape: tuple):
    """The int8 variable that holds two int4 values per byte (zeros until assigned)."""
    return layer.add_weight(shape=shape, name=name, initializer="zeros", dtype="int8",
                            trainable=False)


def scale_shape(count: int, channels: int, block_size, groups_first: bool) -> tuple:
    """``(channels,)`` per channel; ``(groups, channels)`` or ``(channels, groups)`` in
    groups of ``block_size`` over ``count`` positions."""
    if not is_sub_channel(block_size):
        return (channels,)
    groups = math.ceil(count / block_size)
    return (groups, channels) if groups_first else (channels, groups)


def group_index(layer, count: int, block_size):
    """``g_idx``: the group of each of ``count`` positions, ``floor(i / block_size)``."""
    def initializer(shape, dtype=None):
        return ops.floor_divide(ops.arange(count, dtype="float32"), float(block_size))
    return layer.add_weight(shape=(count,), name="g_idx", initializer=initializer,
                            dtype="float32", trainable=False)


def unpack(packed, length: int, axis: int):
    """The int4 values of ``packed`` along ``axis`` (int8, in [-8, 7])."""
    return unpack_int4(packed, length, axis=axis)
