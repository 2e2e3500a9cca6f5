"""int8 ``Embedding`` (Keras 3's layout and numbers): ``embeddings`` int8
(input_dim, output_dim) and ``embeddings_scale`` float (input_dim,), one abs-max scale per
row (per id: rows are usually many, columns few, so this loses least). A lookup gathers the
int8 rows and divides them by their scales."""
from __future__ import annotations

from ... import ops
from ...quantizers.abs_max import AbsMaxQuantizer, abs_max_quantize
from ...quantizers.quantization_config import QuantizationConfig


def build(layer) -> None:
    """Create the int8 variables (zeros and ones until quantized or loaded)."""
    layer._is_quantized = True
    layer.embeddings = layer.add_weight(shape=(layer.input_dim, layer.output_dim),
                                        name="embeddings", initializer="zeros", dtype="int8",
                                        trainable=False)
    layer.embeddings_scale = layer.add_weight(shape=(layer.input_dim,),
                                              name="embeddings_scale", initializer="ones",
                                              trainable=False)


def quantize(layer, config) -> None:
    """Replace the float embeddings of a built Embedding by their int8 form."""
    quantizer = QuantizationConfig.weight_quantizer_or_default(config,
                                                               AbsMaxQuantizer(axis=-1))
    float_embeddings = layer._own_variable("embeddings")   # the base table, without LoRA
    values, scale = quantizer(float_embeddings, to_numpy=True)
    layer._drop_weight(float_embeddings)
    build(layer)
    variable = layer._own_variable("embeddings")
    layer._place_beside(float_embeddings, [variable, layer.embeddings_scale])
    variable.assign(values)
    layer.embeddings_scale.assign(ops.squeeze(scale, axis=-1))


def dequantized(layer):
    """The float table the int8 variables stand for (each row divided by its scale)."""
    table = ops.cast(layer._own_variable("embeddings"), layer.compute_dtype)
    return ops.divide(table, ops.expand_dims(layer.embeddings_scale, axis=-1))


def requantized(layer, table) -> dict:
    """The int8 variables' values for a float ``table`` (abs-max per row)."""
    values, scale = abs_max_quantize(table, axis=-1, value_range=(-127, 127), dtype="int8",
                                     to_numpy=True)
    return {"embeddings": values, "embeddings_scale": ops.squeeze(scale, axis=-1)}


def lookup(layer, ids, take):
    """The dequantized rows of ``ids``; ``take(table, ids)`` gathers (checking the ids)."""
    scale = take(layer.embeddings_scale, ids)
    rows = ops.cast(take(layer._own_variable("embeddings"), ids), layer.compute_dtype)
    return ops.divide(rows, ops.expand_dims(scale, axis=-1))
