"""int8 ``ReversibleEmbedding`` (Keras 3's layout and numbers): the ``Embedding``'s int8
``embeddings`` and per-row ``embeddings_scale`` and, untied, ``reverse_embeddings`` int8
(output_dim, input_dim) with ``reverse_embeddings_scale`` (input_dim,), one scale per id.

The reverse call quantizes the hidden vectors per row and multiplies them by the int8
table exactly (``ops.int8_matmul``), as Keras does; tied, the table is ``embeddings.T`` and
its row scales are the logits' column scales. Like Keras's, this product has no custom
gradient: the hidden vectors get none through the rounding.
"""
from __future__ import annotations

from ... import ops
from ...quantizers.abs_max import AbsMaxQuantizer
from ...quantizers.quantization_config import QuantizationConfig
from . import int8_embedding


def build(layer, config) -> None:
    """Create the int8 variables (zeros and ones until quantized or loaded)."""
    int8_embedding.build(layer)
    layer.inputs_quantizer = QuantizationConfig.activation_quantizer_or_default(
        config, AbsMaxQuantizer(axis=-1))
    if not layer.tie_weights:
        layer.reverse_embeddings = layer.add_weight(
            shape=(layer.output_dim, layer.input_dim), name="reverse_embeddings",
            initializer="zeros", dtype="int8", trainable=False)
        layer.reverse_embeddings_scale = layer.add_weight(
            shape=(layer.input_dim,), name="reverse_embeddings_scale", initializer="ones",
            trainable=False)


def quantize(layer, config) -> None:
    """Replace the float tables of a built ReversibleEmbedding by their int8 forms."""
    forward = QuantizationConfig.weight_quantizer_or_default(config, AbsMaxQuantizer(axis=-1))
    old_embeddings = layer.embeddings
    values, scale = forward(old_embeddings, to_numpy=True)
    layer._drop_weight(old_embeddings)
    old_reverse = None if layer.tie_weights else layer.reverse_embeddings
    if old_reverse is not None:
        backward = QuantizationConfig.weight_quantizer_or_default(config,
                                                                  AbsMaxQuantizer(axis=0))
        reverse_values, reverse_scale = backward(old_reverse, to_numpy=True)
        layer._drop_weight(old_reverse)
    build(layer, config)
    layer._place_beside(old_embeddings, [layer.embeddings, layer.embeddings_scale])
    layer.embeddings.assign(values)
    layer.embeddings_scale.assign(ops.squeeze(scale, axis=-1))
    if old_reverse is not None:
        layer._place_beside(old_reverse, [layer.reverse_embeddings,
                                          layer.reverse_embeddings_scale])
        layer.reverse_embeddings.assign(reverse_values)
        layer.reverse_embeddings_scale.assign(ops.squeeze(reverse_scale, axis=0))


def logits(layer, inputs):
    """``inputs @ table`` the int8 way (before the soft cap)."""
    if layer.tie_weights:
        table, scale = ops.transpose(layer.embeddings), layer.embeddings_scale
    else:
        table, scale = layer.reverse_embeddings, layer.reverse_embeddings_scale
    if layer.inputs_quantizer:
        inputs, inputs_scale = layer.inputs_quantizer(inputs)
        products = ops.int8_matmul(inputs, table)
    else:
        inputs_scale = ops.ones((1,), dtype=layer.compute_dtype)
        products = ops.matmul(inputs, ops.cast(table, inputs.dtype))
    products = ops.cast(products, layer.compute_dtype)
    return ops.divide(products, ops.multiply(inputs_scale, scale))
