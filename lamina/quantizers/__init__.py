"""Keras 3's ``keras.quantizers``: quantizers, quantization configs and the int8/int4/float8
helper functions. Lamina quantizes models in all of Keras's modes: int8, int4, float8, GPTQ
and AWQ (``model.quantize("int4")``, docs/quantization.md).
"""
from __future__ import annotations

from ..core.naming import to_snake_case
from ..registry import deserialize_keras_object, serialize_keras_object
from .abs_max import (AbsMaxQuantizer, Quantizer, abs_max_quantize,
                      abs_max_quantize_grouped_with_zero_point)
from .fake_quant import fake_quant_with_min_max_vars
from .float8 import compute_float8_amax_history, compute_float8_scale, quantize_and_dequantize
from .int4_packing import pack_int4, unpack_int4
from .awq_config import AWQConfig
from .gptq_config import GPTQConfig
from .grouped import (compute_quantization_parameters, dequantize_with_sz_map,
                      quantize_with_sz_map)
from .quantization_config import (Float8QuantizationConfig, Int4QuantizationConfig,
                                  Int8QuantizationConfig, QuantizationConfig)

__all__ = ["Quantizer", "AbsMaxQuantizer", "QuantizationConfig", "Int8QuantizationConfig",
           "Int4QuantizationConfig", "Float8QuantizationConfig", "GPTQConfig", "AWQConfig",
           "compute_quantization_parameters", "dequantize_with_sz_map", "quantize_with_sz_map",
           "abs_max_quantize", "abs_max_quantize_grouped_with_zero_point",
           "fake_quant_with_min_max_vars", "compute_float8_scale",
           "compute_float8_amax_history", "quantize_and_dequantize", "pack_int4",
           "unpack_int4", "serialize", "deserialize", "get"]

_CLASSES = (Quantizer, AbsMaxQuantizer, QuantizationConfig, Int8QuantizationConfig,
            Int4QuantizationConfig, Float8QuantizationConfig, AWQConfig)
ALL_OBJECTS = {**{cls.__name__: cls for cls in _CLASSES},
               **{to_snake_case(cls.__name__): cls for cls in _CLASSES}}


def serialize(initializer):
    """Keras's ``{"module", "class_name", "config", "registered_name"}`` of a quantizer or
    quantization config.

    Args:
        initializer: the quantizer or quantization config to serialize.

    Returns:
        A JSON-ready dict.
    """
    return serialize_keras_object(initializer)


def deserialize(config, custom_objects=None):
    """The quantizer (or config) that :func:`serialize`'s ``config`` describes.

    Args:
        config: the dict ``serialize`` returned.
        custom_objects: a dict ``{name: class}`` for custom quantizers.

    Returns:
        A quantizer or quantization config.
    """
    return deserialize_keras_object(config, custom_objects)


def get(identifier, **kwargs):
    """None -> None; a config dict -> its object; a name (``"AbsMaxQuantizer"`` or
    ``"abs_max_quantizer"``) -> an instance made with ``kwargs``; a quantizer -> itself.

    Args:
        identifier: None, a config dict, a quantizer's name or a quantizer.
        **kwargs: the constructor's arguments, used with a name.

    Returns:
        A quantizer (or None).

    Example:

    >>> import lamina as keras
    >>> keras.quantizers.get("abs_max_quantizer", axis=0).axis
    (0,)
    """
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        obj = deserialize(identifier)
    elif isinstance(identifier, str):
        obj = ALL_OBJECTS.get(identifier)
    else:
        obj = identifier
    if isinstance(obj, type):
        return obj(**kwargs)
    if callable(obj):
        return obj
    raise ValueError(f"Could not interpret quantizer identifier: {identifier}")
