"""int4 ``Embedding`` (Keras 3's layout and numbers).

``embeddings`` is int8 ``(input_dim, ceil(output_dim / 2))``, each row's int4 values
packed two per byte. Per channel (``block_size`` None or -1) ``embeddings_scale``
``(input_dim,)`` is ``7 / max|row|``; in groups of ``block_size`` columns (the default,
128) each row has ``ceil(output_dim / block_size)`` scales and zero points
(``embeddings_scale``, ``embeddings_zero``: ``(input_dim, groups)``) and ``g_idx``
``(output_dim,)`` names each column's group. A lookup unpacks the table, gathers the rows
and dequantizes them.
"""
from __future__ import annotations

from ... import ops
from ...quantizers.abs_max import AbsMaxQuantizer, abs_max_quantize_grouped_with_zero_point
from ...quantizers.grouped import dequantize_with_sz_map
from ...quantizers.int4_packing import pack_int4
from ...quantizers.quantization_config import (QuantizationConfig, int4_block_size,
                                               is_sub_channel)
from . import int4_weights

PER_ROW = AbsMaxQuantizer(axis=-1, value_range=(-8, 7), output_dtype="int8")


def build(layer, config) -> None:
    """Create the int4 variables (zeros and ones until quantized or loaded)."""
    input_dim, output_dim = layer.input_dim, layer.output_dim
    layer._is_quantized = True
    layer.embeddings = int4_weights.packed_weight(layer, "embeddings",
                                                  (input_dim, (output_dim + 1) // 2))
    block_size = int4_block_size(layer, config)
    layer._int4_block_size = block_size
    shape = int4_weights.scale_shape(output_dim, input_dim, block_size, groups_first=False)
    layer.embeddings_scale = layer.add_weight(shape=shape, name="embeddings_scale",
                                              initializer="ones", trainable=False)
    if is_sub_channel(block_size):
        layer.embeddings_zero = layer.add_weight(shape=shape, name="embeddings_zero",
                                                 initializer="zeros", dtype="int8",
                                                 trainable=False)
        layer.g_idx = int4_weights.group_index(layer, output_dim, block_size)
    layer._orig_output_dim = output_dim


def quantize_table(table, config, block_size):
    """``(values, scale, zero)`` of a float ``(input_dim, output_dim)`` table, per row or
    in groups of columns (zero is None per row)."""
    if is_sub_channel(block_size):
        values, scale, zero = abs_max_quantize_grouped_with_zero_point(
            ops.transpose(table), block_size=block_size, value_range=(-8, 7), dtype="int8",
            to_numpy=True)
        return ops.transpose(values), ops.transpose(scale), ops.transpose(zero)
    quantizer = QuantizationConfig.weight_quantizer_or_default(config, PER_ROW)
    values, scale = quantizer(table, to_numpy=True)
    return values, ops.squeeze(scale, axis=-1), None


def assign_table(layer, old, values, scale, zero) -> None:
    """Put a quantized table into the variables ``build`` made."""
    new = [layer._own_variable(n) for n in ("embeddings", "embeddings_scale",
                                            "embeddings_zero", "g_idx")]
    layer._place_beside(old, [v for v in new if v is not None])
    new[0].assign(pack_int4(values, axis=-1)[0])
    layer.embeddings_scale.assign(scale)
    if zero is not None:
        layer.embeddings_zero.assign(zero)


def quantize(layer, config) -> None:
    """Replace the float embeddings of a built Embedding by their packed int4 form."""
    old = layer._own_variable("embeddings")
    quantized = quantize_table(old, config, int4_block_size(layer, config))
    layer._drop_weight(old)
    build(layer, config)
    assign_table(layer, old, *quantized)


def unpacked_embeddings(layer):
    """``layer.embeddings`` of an int4 Embedding: the int4 values."""
    return int4_weights.unpack(layer._own_variable("embeddings"), layer._orig_output_dim,
                               axis=-1)


def dequantized(layer):
    """The float table the int4 variables stand for, ``(input_dim, output_dim)``."""
    table = ops.cast(unpacked_embeddings(layer), layer.compute_dtype)
    if not is_sub_channel(layer._int4_block_size):
        return ops.divide(table, ops.expand_dims(layer.embeddings_scale, axis=-1))
    return dequantize_with_sz_map(table, layer.embeddings_scale, layer.embeddings_zero,
                                  layer.g_idx, group_axis=-1)


def requantized(layer, table) -> dict:
    """The int4 variables' values for a float ``table`` (abs-max per row, or in groups of
    columns with zero points), packed; Keras's per-row path ignores a weight quantizer."""
    values, scale, zero = quantize_table(table, None, layer._int4_block_size)
    extra = {} if zero is None else {"embeddings_zero": zero}
    return {"embeddings": pack_int4(values, axis=-1)[0], "embeddings_scale": scale, **extra}


def lookup(layer, ids, take):
    """The dequantized rows of ``ids``; ``take(table, ids)`` gathers (checking the ids)."""
    # The whole table is unpacked, then gathered (Keras's order): in an exported inference
    # graph the unpacking of the constant table folds away.
    table = int4_weights.unpack(layer._own_variable("embeddings"), layer._orig_output_dim,
                                axis=-1)
    rows = ops.cast(take(table, ids), layer.compute_dtype)
    scale = take(layer.embeddings_scale, ids)
    if not is_sub_channel(layer._int4_block_size):
        return ops.divide(rows, ops.expand_dims(scale, axis=-1))
    zero = take(layer.embeddings_zero, ids)
    return dequantize_with_sz_map(rows, scale, zero, layer.g_idx, group_axis=-1)
