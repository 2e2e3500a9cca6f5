"""Activation functions under Keras 3's ``keras.activations`` names, with ``get``,
``serialize`` and ``deserialize``.

Most are the :mod:`lamina.ops` functions themselves (same arguments and defaults). Defined
here: ``gelu`` (exact by default, as ``keras.activations.gelu``, where ``ops.gelu``
defaults to the tanh approximation), and the compositions ``mish``, ``glu``,
``sparse_sigmoid``, ``sparsemax`` and ``threshold``. A layer stores its activation as a
name (``activation=None`` is stored as "linear").
"""
from __future__ import annotations

from typing import Callable

from . import ops
from .dtypes import floatx, is_float
from .errors import ShapeError, describe_shape
from .ops import (celu, elu, exponential, hard_shrink, hard_sigmoid, hard_silu, hard_tanh,
                  leaky_relu, linear, log_sigmoid, log_softmax, relu, relu6, selu, sigmoid,
                  silu, soft_shrink, softmax, softplus, softsign, sparse_plus, squareplus,
                  tanh, tanh_shrink)
from .ops.core import as_tensor
from .saving.object_registration import is_builtin, register_builtin, serialize_keras_object
from .utils.object_lookup import deserialize_from, lookup_name

swish, hard_swish = silu, hard_silu


def _float_input(name: str, x):
    x = as_tensor(name, x)
    return x if is_float(x.dtype) else ops.cast(x, floatx())


def gelu(x, approximate: bool = False):
    """``x * Phi(x)``; exact (``erf``) by default, ``approximate=True`` for the tanh form."""
    return ops.gelu(x, approximate=bool(approximate))


def mish(x):
    """``x * tanh(softplus(x))`` (Misra, 2019)."""
    x = _float_input("mish", x)
    return ops.multiply(x, ops.tanh(ops.softplus(x)))


def glu(x, axis: int = -1):
    """Gated linear unit: ``a * sigmoid(b)`` for the two halves ``a, b`` of ``x`` along
    ``axis``, which must have even size."""
    x = _float_input("glu", x)
    size = x.shape[axis] if -x.ndim <= axis < x.ndim else None
    if size is None or size % 2:
        raise ShapeError(f"glu: axis {axis} of 'x' must exist and have even size (glu "
                         f"splits it in two halves); received shape {describe_shape(x.shape)}")
    a, b = ops.split(x, 2, axis=axis)
    return ops.multiply(a, ops.sigmoid(b))


def sparse_sigmoid(x):
    """0 for ``x <= -1``, ``(x + 1) / 2`` between, 1 for ``x >= 1``."""
    return ops.multiply(ops.add(ops.clip(_float_input("sparse_sigmoid", x), -1, 1), 1), 0.5)


def threshold(x, threshold: float, default_value: float):
    """``x`` where ``x > threshold``, else ``default_value``."""
    x = as_tensor("threshold", x)
    return ops.where(ops.greater(x, threshold), x, default_value)


def sparsemax(x, axis: int = -1):
    """The Euclidean projection of ``x`` onto the probability simplex along ``axis``
    (Martins & Astudillo, 2016): like softmax, but exact zeros for small entries.

    Sort-free: element ``i`` is in the support when ``1 + k_i x_i > s_i``, where ``k_i``
    counts the entries ``>= x_i`` and ``s_i`` is their sum; that takes ``n * n`` memory per
    vector of length ``n``. The gradient flows through the threshold ``tau``.
    """
    x = _float_input("sparsemax", x)
    z = ops.moveaxis(x, axis, -1)
    zi, zj = ops.expand_dims(z, -1), ops.expand_dims(z, -2)
    at_least = ops.cast(ops.greater_equal(zj, zi), z.dtype)     # [..., i, j]: z_j >= z_i
    count = ops.sum(at_least, axis=-1)
    total = ops.sum(ops.multiply(at_least, zj), axis=-1)
    support = ops.cast(ops.greater(ops.add(ops.multiply(count, z), 1), total), z.dtype)
    size = ops.sum(support, axis=-1, keepdims=True)
    tau = ops.divide(ops.subtract(ops.sum(ops.multiply(support, z), axis=-1, keepdims=True),
                                  1), size)
    return ops.moveaxis(ops.relu(ops.subtract(z, tau)), -1, axis)


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


__all__ = sorted(ALL_OBJECTS) + ["get", "serialize", "deserialize", "ALL_OBJECTS"]
