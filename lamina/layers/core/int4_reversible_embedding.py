"""int4 ``ReversibleEmbedding`` (Keras 3's layout and numbers): the ``Embedding``'s int4
table (``int4_embedding.py``) and, untied, ``reverse_embeddings`` int8 ``(ceil(output_dim
/ 2), input_dim)`` packed along the hidden axis, with ``reverse_embeddings_scale``
``(input_dim,)`` per id or, in groups of ``block_size`` hidden units,
``reverse_embeddings_scale`` and ``reverse_embeddings_zero`` ``(groups, input_dim)`` (the
zero point in the layer's float dtype, as Keras stores it) sharing the forward ``g_idx``.

The reverse call unpacks the table (tied: the forward table, transposed). Per id it
multiplies the hidden vectors -- quantized per row to int8 when the layer has an
``inputs_quantizer``, which a layer built from a policy without a config does -- by the
int4 values and divides by the scales; in groups it dequantizes the table and multiplies
in float. Like Keras's, the reverse product has no custom gradient.
"""
from __future__ import annotations

from ... import ops
from ...quantizers.abs_max import AbsMaxQuantizer, abs_max_quantize_grouped_with_zero_point
from ...quantizers.grouped import dequantize_with_sz_map
from ...quantizers.int4_packing import pack_int4
from ...quantizers.quantization_config import (QuantizationConfig, int4_block_size,
                                               is_sub_channel)
from . import int4_embedding, int4_weights

PER_ID = AbsMaxQuantizer(axis=0, value_range=(-8, 7), output_dtype="int8")


def build(layer, config) -> None:
    """Create the int4 variables (zeros and ones until quantized or loaded)."""
    int4_embedding.build(layer, config)
    layer.inputs_quantizer = QuantizationConfig.activation_quantizer_or_default(
        config, AbsMaxQuantizer(axis=-1))
    if layer.tie_weights:
        return
    output_dim, input_dim = layer.output_dim, layer.input_dim
    layer.reverse_embeddings = int4_weights.packed_weight(
        layer, "reverse_embeddings", ((output_dim + 1) // 2, input_dim))
    block_size = int4_block_size(layer, config)
    shape = int4_weights.scale_shape(output_dim, input_dim, block_size, groups_first=True)
    layer.reverse_embeddings_scale = layer.add_weight(
        shape=shape, name="reverse_embeddings_scale", initializer="ones", trainable=False)
    if is_sub_channel(block_size):
        layer.reverse_embeddings_zero = layer.add_weight(
            shape=shape, name="reverse_embeddings_zero", initializer="zeros",
            trainable=False)


def quantize(layer, config) -> None:
    """Replace the float tables of a built ReversibleEmbedding by their int4 forms."""
    block_size = int4_block_size(layer, config)
    old = layer._own_variable("embeddings")
    forward = int4_embedding.quantize_table(old, config, block_size)
    layer._drop_weight(old)
    old_reverse = None if layer.tie_weights else layer.reverse_embeddings
    if old_reverse is not None:
        if is_sub_channel(block_size):
            reverse = abs_max_quantize_grouped_with_zero_point(
                old_reverse, block_size=block_size, value_range=(-8, 7), dtype="int8",
                to_numpy=True)
        else:
            quantizer = QuantizationConfig.weight_quantizer_or_default(config, PER_ID)
            values, scale = quantizer(old_reverse, to_numpy=True)
            reverse = (values, ops.squeeze(scale, axis=0))
        layer._drop_weight(old_reverse)
    build(layer, config)
    int4_embedding.assign_table(layer, old, *forward)
    if old_reverse is not None:
        names = ("reverse_embeddings", "reverse_embeddings_scale", "reverse_embeddings_zero")
        new = [layer._own_variable(n) for n in names]
        layer._place_beside(old_reverse, [v for v in new if v is not None])
        new[0].assign(pack_int4(reverse[0], axis=0)[0])
        for variable, value in zip(new[1:], reverse[1:]):
            variable.assign(ops.cast(value, variable.dtype))


def logits(layer, inputs):
    """``inputs @ table`` the int4 way (before the soft cap)."""
    grouped = is_sub_channel(layer._int4_block_size)
    if layer.tie_weights:
        table = ops.transpose(layer._own_variable("embeddings"))
        scale, zero = layer.embeddings_scale, getattr(layer, "embeddings_zero", None)
        if grouped:
            scale, zero = ops.transpose(scale), ops.transpose(zero)
    else:
        table = layer._own_variable("reverse_embeddings")
        scale = layer.reverse_embeddings_scale
        zero = getattr(layer, "reverse_embeddings_zero", None)
    unpacked = int4_weights.unpack(table, layer.output_dim, axis=0)
    compute_dtype = layer.compute_dtype
    if layer.inputs_quantizer:
        inputs, inputs_scale = layer.inputs_quantizer(inputs)
    else:
        inputs_scale = ops.ones((1,), dtype=compute_dtype)
    if grouped:
        table = dequantize_with_sz_map(ops.cast(unpacked, compute_dtype), scale, zero,
                                       layer.g_idx, group_axis=0)
        products = ops.matmul(ops.cast(inputs, table.dtype), table)
        return ops.divide(products, inputs_scale)
    if inputs.dtype == "int8":
        products = ops.int8_matmul(inputs, unpacked)
    else:
        products = ops.matmul(inputs, ops.cast(unpacked, inputs.dtype))
    products = ops.cast(products, compute_dtype)
    return ops.divide(products, ops.multiply(inputs_scale, scale))
