"""Quantization configs (Keras 3's ``keras.quantizers``): which quantizers a layer's
``quantize`` uses for its weights and its inputs, and the mode -- int8, int4 (with its
block size) and float8.

``resolve.validate_and_resolve_config(mode, config)`` is what ``Layer.quantize`` calls
first: a mode gives its default config, a config gives its mode, and the two must agree.
"""
from __future__ import annotations

from ..dtype_policies.dtype_policy_map import DTypePolicyMap
from ..dtype_policies.quantized import Int4DTypePolicy
from ..registry import deserialize_keras_object, register_builtin, serialize_keras_object
from .abs_max import AbsMaxQuantizer


@register_builtin
class QuantizationConfig:
    """The base config: ``weight_quantizer`` and ``activation_quantizer`` (None: the
    layer's defaults for the weights; no input quantization). Subclasses give ``mode``.

    Args:
        weight_quantizer: a ``Quantizer`` for the kernels, or None for the layer's default.
        activation_quantizer: a ``Quantizer`` for the layer inputs, or None (no input
            quantization).
    """

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
    all (None: the int8 kernel is dequantized and the product runs in float).

    Args:
        weight_quantizer: a ``Quantizer`` for the kernels, or None for the layer's default.
        activation_quantizer: a ``Quantizer`` for the layer inputs, ``"default"`` (abs-max
            per row) or None (inputs stay float).

    Example:

    >>> import lamina as keras
    >>> config = keras.quantizers.Int8QuantizationConfig(
    ...     weight_quantizer=keras.quantizers.AbsMaxQuantizer(axis=0))
    """

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


@register_builtin
class Int4QuantizationConfig(QuantizationConfig):
    """int4: weights in [-8, 7], two to a byte. ``block_size`` (default 128) quantizes
    groups of that many input rows with a scale and a zero point each (sub-channel,
    asymmetric); None or -1 gives one abs-max scale per output channel, the only scheme
    that takes custom quantizers. Inputs are not quantized unless ``activation_quantizer``
    is given ("default" means none for int4).

    Args:
        weight_quantizer: a ``Quantizer`` for the kernels, or None for the layer's default.
        activation_quantizer: a ``Quantizer`` for the layer inputs, or ``"default"``/None
            (inputs stay float).
        block_size: int, input rows per scale and zero point (default 128); None or -1
            gives one scale per output channel.
    """

    def __init__(self, weight_quantizer=None, activation_quantizer="default", block_size=128):
        if isinstance(activation_quantizer, str) and activation_quantizer == "default":
            activation_quantizer = None
        super().__init__(weight_quantizer, activation_quantizer)
        if block_size is not None and (isinstance(block_size, bool)
                                       or not isinstance(block_size, int)
                                       or (block_size != -1 and block_size <= 0)):
            raise ValueError(f"block_size must be None, -1, or a positive integer. "
                             f"Received: block_size={block_size}")
        self.block_size = block_size
        if block_size is not None and block_size > 0 and (
                weight_quantizer is not None or activation_quantizer is not None):
            raise ValueError(f"Int4 sub-channel quantization (block_size > 0) does not "
                             f"support custom quantizers. Either set block_size to None or "
                             f"-1 for per-channel quantization, or remove the custom "
                             f"quantizer arguments. Received: block_size={block_size}")
        if weight_quantizer is not None:
            value_range = getattr(weight_quantizer, "value_range", None)
            # A list (a config read back from JSON) is the same range: Keras 3.15.1
            # compares with the tuple and cannot reload its own config.
            if value_range is None or tuple(value_range) != (-8, 7):
                raise ValueError(f"Int4QuantizationConfig requires a weight_quantizer with "
                                 f"value_range=(-8, 7). Received: value_range={value_range}")
            if weight_quantizer.output_dtype != "int8":
                raise ValueError(f"Int4QuantizationConfig requires a weight_quantizer with "
                                 f"output_dtype='int8'. Received: "
                                 f"output_dtype={weight_quantizer.output_dtype}")

    @property
    def mode(self):
        return "int4"

    def get_config(self) -> dict:
        return {**super().get_config(), "block_size": self.block_size}

    @classmethod
    def from_config(cls, config):
        # Files written before block_size existed were per channel.
        return cls(weight_quantizer=deserialize_keras_object(config.get("weight_quantizer")),
                   activation_quantizer=deserialize_keras_object(
                       config.get("activation_quantizer")),
                   block_size=config.get("block_size", None))


@register_builtin
class Float8QuantizationConfig(QuantizationConfig):
    """float8 training: inputs and kernel in float8_e4m3fn, output gradients in
    float8_e5m2, each with a delayed scale. It takes no quantizers."""

    def __init__(self):
        super().__init__(None, None)

    @property
    def mode(self):
        return "float8"

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config):
        return cls()


def int4_block_size(layer, config):
    """The int4 block size of ``layer`` (Keras's rule): the config's when it is an
    Int4QuantizationConfig, else its policy's (an Int4DTypePolicy, possibly in a
    DTypePolicyMap), else None (per channel); a policy's -1 reads as None."""
    if isinstance(config, Int4QuantizationConfig):
        return config.block_size
    policy = layer.dtype_policy
    if isinstance(policy, DTypePolicyMap):
        policy = policy[layer.path]
    if isinstance(policy, Int4DTypePolicy):
        return None if policy.block_size == -1 else policy.block_size
    return None


def is_sub_channel(block_size) -> bool:
    """Whether an int4 block size means groups (a positive size) or one scale per
    channel (None, -1)."""
    return block_size is not None and block_size > 0


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
