"""Activation functions under Keras 3's ``keras.activations`` names, with ``get``,
``serialize`` and ``deserialize``.

Most are the :mod:`lamina.ops` functions themselves (same arguments and defaults). Defined
here: ``relu`` (with Keras's ``negative_slope``/``max_value``/``threshold``, which
``ops.relu`` does not take), ``gelu`` (exact by default, as ``keras.activations.gelu``,
where ``ops.gelu`` defaults to the tanh approximation), and the composition ``mish``. A
layer stores its activation as a name (``activation=None`` is stored as "linear").
"""
from __future__ import annotations

from typing import Callable

from . import ops
from .dtypes import floatx, is_float
from .ops import (celu, elu, exponential, hard_shrink, hard_sigmoid, hard_silu, hard_tanh,
                  leaky_relu, linear, log_sigmoid, log_softmax, relu6, selu, sigmoid,
                  silu, soft_shrink, softmax, softplus, softsign, sparse_plus, squareplus,
                  tanh, tanh_shrink)
from .ops.activations import relu_with_options
from .ops.core import as_tensor
from .ops.piecewise import glu, sparse_sigmoid, sparsemax, threshold
from .registry import is_builtin, register_builtin, register_family, serialize_keras_object
from .registry.lookup import deserialize_from, lookup_name

swish, hard_swish = silu, hard_silu


def _float_input(name: str, x):
    x = as_tensor(name, x)
    return x if is_float(x.dtype) else ops.cast(x, floatx())


def relu(x, negative_slope=0.0, max_value=None, threshold=0.0):
    """``max(x, 0)``, with Keras's activation arguments: values below ``threshold`` become
    ``negative_slope * (x - threshold)`` and the result is capped at ``max_value``
    (``lamina.ops.relu(x)`` is the plain form)."""
    return relu_with_options(x, negative_slope=negative_slope, max_value=max_value,
                             threshold=threshold)


def gelu(x, approximate: bool = False):
    """``x * Phi(x)``; exact (``erf``) by default, ``approximate=True`` for the tanh form."""
    return ops.gelu(x, approximate=bool(approximate))


def mish(x):
    """``x * tanh(softplus(x))`` (Misra, 2019)."""
    x = _float_input("mish", x)
    return ops.multiply(x, ops.tanh(ops.softplus(x)))


# Every Keras 3 activation name; `swish` and `hard_swish` are aliases of silu and hard_silu.
_FUNCTIONS = (relu, relu6, leaky_relu, elu, selu, gelu, softmax, log_softmax, sigmoid, tanh,
              softplus, softsign, silu, hard_sigmoid, hard_silu, exponential, linear, mish,
              celu, glu, log_sigmoid, hard_tanh, tanh_shrink, hard_shrink, soft_shrink,
              squareplus, sparse_plus, sparse_sigmoid, sparsemax, threshold)
ALL_OBJECTS: dict[str, Callable] = {fn.__name__: fn for fn in _FUNCTIONS}
ALL_OBJECTS.update(swish=silu, hard_swish=hard_silu)
_NAMES = {fn: fn.__name__ for fn in _FUNCTIONS}
for _name, _fn in ALL_OBJECTS.items():
    register_builtin(_fn, name=_name)
del _name, _fn


def serialize(activation) -> str | dict:
    """What a layer config stores: the name of a built-in ("linear" for None), else
    Keras's ``{"class_name": "function", "config": name, ...}`` dict (register the
    function with ``lamina.saving.register_keras_serializable`` to load it back)."""
    if activation is None:
        return "linear"
    if not callable(activation):
        raise TypeError(f"activations.serialize: argument 'activation' must be callable; "
                        f"received {activation!r}")
    if activation in _NAMES:
        return _NAMES[activation]
    config = serialize_keras_object(activation)
    name = config.get("config") if isinstance(config, dict) else None
    if isinstance(name, str) and name in ALL_OBJECTS and (
            is_builtin(activation) or activation.__module__.startswith("lamina.")):
        return name                   # e.g. lamina.ops.gelu, stored as Keras stores it
    return config


def deserialize(config, custom_objects: dict | None = None) -> Callable:
    """The activation a name or a ``{"class_name": "function", "config": name}`` dict
    stands for."""
    return deserialize_from("activation", config, ALL_OBJECTS, custom_objects)


def get(identifier) -> Callable:
    """An activation from None (linear), a name such as "relu", a config dict or a
    callable (returned as it is)."""
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        return lookup_name("activation", identifier, ALL_OBJECTS)
    obj = deserialize(identifier) if isinstance(identifier, dict) else identifier
    if isinstance(obj, type):
        obj = obj()                 # a callable class, e.g. a layer such as ReLU
    if not callable(obj):
        raise TypeError(f"activations.get: could not interpret activation identifier "
                        f"{identifier!r}: expected None, a name, a config dict or a callable")
    return obj


register_family("keras.activations", lambda: ALL_OBJECTS)

__all__ = sorted(ALL_OBJECTS) + ["get", "serialize", "deserialize", "ALL_OBJECTS"]
