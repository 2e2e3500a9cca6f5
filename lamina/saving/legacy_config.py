"""Keras 2 (tf.keras, tf_keras, multi-backend Keras) configs turned into Keras 3's schema,
which Lamina's ``from_config`` methods read.

Only the spelling changes, never the meaning: ``batch_input_shape`` becomes
``batch_shape``, ``"Model"`` becomes ``"Functional"``, a Sequential config given as a bare
list gets its ``{"layers": [...]}`` dict (functional configs: see
:mod:`.legacy_functional_config`), ``dtype`` keys leave initializer configs, one-element
``axis`` lists become ints, ``alpha`` becomes ``negative_slope``, a stored Python lambda
becomes Keras 3's ``__lambda__`` (refused in safe mode), and the
``module`` a class is named under (``keras.src.*``, ``tf_keras.*``, ...) is dropped:
classes are found through Lamina's registry by their names alone. Keras 3 configs pass
through unchanged.
"""
from __future__ import annotations

# Older names of the same classes.
_CLASS_ALIASES = {"Model": "Functional", "Convolution1D": "Conv1D",
                  "Convolution2D": "Conv2D", "Deconvolution2D": "Conv2DTranspose",
                  "SeparableConvolution2D":
                  "SeparableConv2D", "MaxPool1D": "MaxPooling1D", "MaxPool2D": "MaxPooling2D",
                  "AvgPool1D": "AveragePooling1D", "AvgPool2D": "AveragePooling2D",
                  "GlobalAvgPool1D": "GlobalAveragePooling1D",
                  "GlobalAvgPool2D": "GlobalAveragePooling2D",
                  "GlobalMaxPool1D": "GlobalMaxPooling1D",
                  "GlobalMaxPool2D": "GlobalMaxPooling2D"}
MODEL_CLASSES = ("Functional", "Sequential")
# Layers to which Keras 2 passes `initial_state` folded into the inputs list.
RNN_CLASSES = ("RNN", "SimpleRNN", "LSTM", "GRU", "Bidirectional", "ConvLSTM1D",
               "ConvLSTM2D", "ConvLSTM3D")
_POLICIES = ("Policy", "DTypePolicy", "FloatDTypePolicy", "PolicyV1")
# Keys tf.keras writes that Keras 3's classes do not take (inherited, or only for building).
_SEPARABLE = ("groups", "kernel_initializer", "kernel_regularizer", "kernel_constraint")
_KERAS2_ONLY = {"SeparableConv1D": _SEPARABLE, "SeparableConv2D": _SEPARABLE,
                "DepthwiseConv1D": ("groups",), "DepthwiseConv2D": ("groups",),
                "Conv1DTranspose": ("groups",), "Conv2DTranspose": ("groups",),
                "Conv3DTranspose": ("groups",),
                "SpatialDropout1D": ("noise_shape",), "SpatialDropout2D": ("noise_shape",),
                "SpatialDropout3D": ("noise_shape",),
                "MultiHeadAttention": ("query_shape", "key_shape", "value_shape")}


class LegacyConfigError(ValueError):
    """A Keras 2 config that cannot be expressed in Keras 3's schema."""


def text(value) -> str:
    """An HDF5 attribute or JSON value as ``str`` (Keras 2 writes UTF-8 bytes)."""
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if hasattr(value, "item") and getattr(value, "shape", None) == ():   # numpy scalar
        return text(value.item())
    return value


def convert_model_config(config: dict) -> dict:
    """A whole model's ``{"class_name", "config"}`` in Keras 3's schema."""
    if not isinstance(config, dict) or not isinstance(config.get("class_name"), str):
        raise LegacyConfigError(f"a model config must be a dict with a 'class_name'; "
                                f"received {str(config)[:80]!r}")
    return convert_layer(config)


def convert_layer(entry):
    """One serialized layer (or model, cell, wrapped layer) in Keras 3's schema."""
    if not isinstance(entry, dict) or "class_name" not in entry:
        return entry
    entry = {key: value for key, value in entry.items() if key != "module"}
    class_name = canonical_class_name(entry["class_name"])
    entry["class_name"] = class_name
    config = entry.get("config")
    if class_name == "Sequential":
        entry["config"] = _sequential(config)
    elif class_name == "Functional" or (isinstance(config, dict) and "output_layers" in
                                        config and "input_layers" in config):
        from .legacy_functional_config import convert_functional  # it imports this module
        entry["config"] = convert_functional(config)
    elif isinstance(config, dict):
        entry["config"] = _layer_config(class_name, config)
    return entry


def canonical_class_name(name: str) -> str:
    if "." in name and ">" not in name:             # "keras.layers.Dense"
        name = name.rsplit(".", 1)[1]
    return _CLASS_ALIASES.get(name, name)


# ------------------------------------------------------------------------------ layers
def _layer_config(class_name: str, config: dict) -> dict:
    config = dict(config)
    if "dtype" in config:
        config["dtype"] = _dtype(config["dtype"])
    if class_name == "InputLayer":
        if "batch_input_shape" in config:
            config["batch_shape"] = config.pop("batch_input_shape")
        config.pop("ragged", None)
        if isinstance(config.get("dtype"), dict):
            config["dtype"] = config["dtype"]["config"]["name"]
    for key, value in list(config.items()):
        if key.endswith("_initializer") and isinstance(value, dict):
            config[key] = _initializer(value)
        elif key in ("layer", "backward_layer", "cell") and isinstance(value, dict):
            config[key] = convert_layer(value)
        elif key in ("cell", "cells") and isinstance(value, list):
            config[key] = [convert_layer(item) for item in value]
    for key in _KERAS2_ONLY.get(class_name, ()):
        config.pop(key, None)
    if class_name in RNN_CLASSES or "cell" in config:
        config.pop("implementation", None)
        if config.get("time_major") is False:
            config.pop("time_major")
    if class_name == "BatchNormalization" and isinstance(config.get("axis"), list) and \
            len(config["axis"]) == 1:
        config["axis"] = config["axis"][0]
    if class_name == "LeakyReLU" and "alpha" in config and "negative_slope" not in config:
        config["negative_slope"] = config.pop("alpha")
    if class_name == "Lambda":
        _lambda(config)
    return config


def _dtype(value):
    """A dtype string stays; Keras 2's ``Policy`` dicts become Keras 3's DTypePolicy."""
    if isinstance(value, dict) and value.get("class_name") in _POLICIES:
        name = (value.get("config") or {}).get("name")
        return {"module": "keras", "class_name": "DTypePolicy", "config": {"name": name},
                "registered_name": None}
    return value


def _initializer(value: dict) -> dict:
    value = {key: item for key, item in value.items() if key != "module"}
    config = dict(value.get("config") or {})
    config.pop("dtype", None)                      # tf.keras 2.0-2.3 wrote one
    if value.get("class_name") == "VarianceScaling" and config.get("distribution") == "normal":
        config["distribution"] = "truncated_normal"
    value["config"] = config
    return value


def _lambda(config: dict) -> None:
    """Keras 2 stores ``function`` as ``[base64 bytecode, defaults, closure]`` with
    ``function_type: "lambda"``, or a name with ``function_type: "function"``."""
    for key, kind in (("function", "function_type"), ("output_shape", "output_shape_type"),
                      ("mask", "mask_type")):
        value, how = config.get(key), config.pop(kind, None)
        config.pop(f"{key}_module" if key != "function" else "module", None)
        if how == "lambda" and isinstance(value, (list, tuple)):
            code, defaults, closure = (list(value) + [None, None])[:3]
            config[key] = {"class_name": "__lambda__",
                           "config": {"code": code, "defaults": defaults, "closure": closure}}
        elif how == "function" and isinstance(value, str):
            config[key] = {"module": "builtins", "class_name": "function", "config": value,
                           "registered_name": "function"}


# ------------------------------------------------------------------------------ models
def _sequential(config) -> dict:
    if isinstance(config, list):                     # Keras <= 2.2: just the layers
        config = {"layers": config}
    config = dict(config or {})
    config.setdefault("name", "sequential")          # Keras <= 2.2 stored none
    _free_batch_size(config)
    if "dtype" in config:
        config["dtype"] = _dtype(config["dtype"])
    config["layers"] = [convert_layer(entry) for entry in config.get("layers", [])]
    return config


def _free_batch_size(config: dict) -> None:
    """A Sequential model that Keras 3 built on its first batch records that batch's size
    in its InputLayer and ``build_input_shape``; Keras ignores it when called on other
    sizes, so it is dropped (kept for stateful RNNs, which need it)."""
    layers = config.get("layers") or []
    if any(isinstance(entry, dict) and (entry.get("config") or {}).get("stateful")
           for entry in layers):
        return
    shape = config.get("build_input_shape")
    if isinstance(shape, list) and shape and isinstance(shape[0], int):
        config["build_input_shape"] = [None, *shape[1:]]
    first = layers[0] if layers and isinstance(layers[0], dict) else {}
    batch_shape = (first.get("config") or {}).get("batch_shape")
    if first.get("class_name") == "InputLayer" and isinstance(batch_shape, list) and \
            batch_shape and isinstance(batch_shape[0], int):
        first["config"] = {**first["config"], "batch_shape": [None, *batch_shape[1:]]}
