"""``Softmax``: softmax over ``axis``, with Keras's masking (Keras 3's layer)."""
from __future__ import annotations

import numbers

from ... import ops
from ..layer import Layer


def large_negative_number(dtype: str) -> float:
    """What masked logits get added: -1e9, or -3e4 where float16 would overflow."""
    return -3e4 if dtype == "float16" else -1e9


class Softmax(Layer):
    """Keras 3's ``Softmax``: ``exp(x) / sum(exp(x), axis)`` (``axis`` an int or a list).

    ``call(inputs, mask=None)``: positions where ``mask`` is False (or, for a numeric
    mask, not above 0.5) are replaced by :func:`large_negative_number` before the softmax
    and set to exactly 0 after it, so a fully masked row is all zeros, as in Keras 3.15.
    The mask broadcasts against ``inputs`` (each of its sizes 1 or the input's; it may not
    be larger nor have more axes). A mask of lower rank that cannot broadcast from the
    trailing axes is aligned with the leading ones (a timestep mask from ``Masking`` or
    ``Embedding(mask_zero=True)`` masks every feature of a step), where Keras would fail.

    Args:
        axis: Axis or list of axes the softmax normalizes over.
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        values = list(axis) if isinstance(axis, (list, tuple)) else [axis]
        if not values or any(isinstance(a, bool) or not isinstance(a, numbers.Integral)
                             for a in values):
            raise TypeError(f"{self.name}: argument 'axis' must be an int or a non-empty list "
                            f"of ints; received {axis!r}")
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else int(axis)
        self.supports_masking = True
        self._build_at_init()

    def call(self, inputs, mask=None):
        rank = len(inputs.shape)
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        if any(not -rank <= a < rank for a in axes):
            raise ValueError(f"{self.name}: argument 'axis' must name axes of the input (rank "
                             f"{rank}); received axis={self.axis} for input shape "
                             f"{tuple(inputs.shape)}")
        if mask is None:
            return ops.softmax(inputs, axis=tuple(axes))
        mask = self._aligned_mask(ops.convert_to_tensor(mask), inputs)
        if mask.dtype != "bool":
            mask = ops.greater(mask, 0.5)
        inputs = ops.where(mask, inputs, large_negative_number(inputs.dtype))
        outputs = ops.softmax(inputs, axis=tuple(axes))
        return ops.where(mask, outputs, ops.zeros((), outputs.dtype))

    def _aligned_mask(self, mask, inputs):
        shape, mask_shape = tuple(inputs.shape), tuple(mask.shape)
        if len(mask_shape) < len(shape) and all(
                m is None or s is None or m in (1, s) for m, s in zip(mask_shape, shape)):
            for _ in range(len(shape) - len(mask_shape)):
                mask = ops.expand_dims(mask, -1)
            return mask
        if len(mask_shape) > len(shape):
            raise ValueError(f"{self.name}: the mask must be broadcastable to the inputs and "
                             f"must not have more dimensions; received mask shape "
                             f"{mask_shape} for input shape {shape}")
        if not all(m is None or s is None or m in (1, s)
                   for m, s in zip(mask_shape[::-1], shape[::-1])):
            raise ValueError(f"{self.name}: the mask must be broadcastable to the inputs (each "
                             f"mask size 1 or the input's, or the mask matching the inputs' "
                             f"leading axes); received mask shape {mask_shape} for input "
                             f"shape {shape}")
        return mask

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis}
