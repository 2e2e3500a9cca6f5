"""Quantization configs (Keras 3's ``keras.quantizers.QuantizationConfig``): which
quantizers a layer's ``quantize`` uses for its weights and its inputs, and the mode.

``validate_and_resolve_config(mode, config)`` is what ``Layer.quantize`` and
``Model.quantize`` call first: a mode gives its default config, a config gives its mode,
and the two must agree.
"""
from __future__ import annotations

from ..dtype_policies.quantized import check_known_mode, check_mode
from ..registry import deserialize_keras_object, register_builtin, serialize_keras_object
from .abs_max import AbsMaxQuantizer


@register_builtin
class QuantizationConfig:
    """The base config: ``weight_quantizer`` and ``activation_quantizer`` (None: the
    layer's defaults for the weights; no input quantization). Subclasses give ``mode``."""

    _keras_module = "keras.quantizers"

    def __init__(self, weight_quantizer=None, activation_quantizer=None):
        self.weight_quantizer = weight_quantizer
        self.activation_quantizer = activation_quantizer

    @property
    def mode(self):
        raise NotImplementedError("Subclasses must implement this property. Do not "
                                  "instantiate QuantizationConfig directly.")

    def get_config(self) -> dict:
        return {"weight_quantizer": serialize_keras_object(self.weight_quantizer),
                "activation_quantizer": serialize_keras_object(self.activation_quantizer)}

    @classmethod
    def from_config(cls, config):
        return cls(weight_quantizer=deserialize_keras_object(config.get("weight_quantizer")),
                   activation_quantizer=deserialize_keras_object(
                       config.get("activation_quantizer")))

    @staticmethod
    def weight_quantizer_or_default(config, default):
        if config is not None and config.weight_quantizer is not None:
            return config.weight_quantizer
        return default

    @staticmethod
    def activation_quantizer_or_default(config, default):
        return config.activation_quantizer if config is not None else default


@register_builtin
class Int8QuantizationConfig(QuantizationConfig):
    """int8: weights by abs-max per output channel unless ``weight_quantizer`` says
    otherwise; inputs by abs-max per row (``activation_quantizer="default"``), or not at
    all (None: the int8 kernel is dequantized and the product runs in float)."""

    def __init__(self, weight_quantizer=None, activation_quantizer="default"):
        if isinstance(activation_quantizer, str) and activation_quantizer == "default":
            activation_quantizer = AbsMaxQuantizer()
        super().__init__(weight_quantizer, activation_quantizer)
        if weight_quantizer is not None and weight_quantizer.output_dtype != "int8":
            raise ValueError(f"Int8QuantizationConfig requires a weight_quantizer with "
                             f"output_dtype='int8'. Received: "
                             f"output_dtype={weight_quantizer.output_dtype}")

    @property
    def mode(self):
        return "int8"


def validate_and_resolve_config(mode, config):
    """The config ``quantize(mode, config)`` runs with (Keras's rules and errors)."""
    if isinstance(config, str):
        mode, config = config, None
    if mode is not None and not isinstance(mode, str):
        raise ValueError(f"Invalid quantization mode. Received: mode={mode}")
    if mode is not None:
        check_known_mode(mode)
    if config is None:
        if mode is None:
            raise ValueError("You must provide either `mode` or `config` to `quantize`.")
        check_mode(mode)
        return Int8QuantizationConfig()
    if not isinstance(config, QuantizationConfig):
        raise ValueError(f"Argument `config` must be an instance of `QuantizationConfig`. "
                         f"Received: config={config} (of type {type(config)})")
    if mode is not None and config.mode != mode:
        raise ValueError(f"Contradictory arguments: mode='{mode}' but "
                         f"config.mode='{config.mode}'")
    check_mode(config.mode)
    return config


def layer_quantization_config(layer: str, value):
    """A layer's ``quantization_config`` argument: None, a QuantizationConfig, or its
    serialized form (a layer config read from a file)."""
    if isinstance(value, dict):
        try:
            value = deserialize_keras_object(value)
        except (TypeError, ValueError) as error:
            raise ValueError(f"{layer}: argument 'quantization_config' is not a "
                             f"serialized QuantizationConfig ({error}); received "
                             f"{value!r}") from None
    if value is not None and not isinstance(value, QuantizationConfig):
        raise ValueError(f"{layer}: argument 'quantization_config' must be a "
                         f"QuantizationConfig (such as Int8QuantizationConfig()) or None; "
                         f"received {value!r}")
    return value
