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
    """Rectified linear unit: ``max(x, 0)``, with Keras's activation options.

    Values below ``threshold`` become ``negative_slope * (x - threshold)``, and the
    result is capped at ``max_value``. ``lamina.ops.relu(x)`` is the plain form.

    Args:
        x: The input tensor (or array).
        negative_slope: The slope below ``threshold``. Defaults to 0.0.
        max_value: The largest output value; ``None`` (default) for no cap.
        threshold: The value below which the slope is ``negative_slope``. Defaults to
            0.0.

    Returns:
        A tensor of the shape of ``x``.

    Example:

    >>> x = np.array([-2.0, -0.5, 0.5, 2.0])
    >>> np.round(lamina.activations.relu(x, negative_slope=0.1, max_value=1.0).numpy(), 4)
    array([-0.2 , -0.05,  0.5 ,  1.  ])
    """
    return relu_with_options(x, negative_slope=negative_slope, max_value=max_value,
                             threshold=threshold)


def gelu(x, approximate: bool = False):
    """Gaussian error linear unit.

    ``gelu(x) = x * Phi(x)``, ``Phi`` the standard normal distribution function: exact
    (with ``erf``) by default, or its tanh approximation.

    Args:
        x: The input tensor (or array).
        approximate: If ``True``, use the tanh approximation. Defaults to ``False``.

    Returns:
        A tensor of the shape of ``x``.

    Example:

    >>> x = np.array([-2.0, -0.5, 0.5, 2.0])
    >>> np.round(lamina.activations.gelu(x).numpy(), 4)
    array([-0.0455, -0.1543,  0.3457,  1.9545])
    """
    return ops.gelu(x, approximate=bool(approximate))


def mish(x):
    """Mish activation: ``x * tanh(softplus(x))``.

    After Misra, 2019.

    Args:
        x: The input tensor (or array); integer input is cast to ``floatx()``.

    Returns:
        A tensor of the shape of ``x``.

    Example:

    >>> x = np.array([-2.0, -0.5, 0.5, 2.0])
    >>> np.round(lamina.activations.mish(x).numpy(), 4)
    array([-0.2525, -0.2207,  0.3752,  1.944 ])
    """
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
    """Return what a layer config stores for an activation.

    Args:
        activation: An activation function, or ``None``.

    Returns:
        The name of a built-in (``"linear"`` for ``None``), else Keras's
        ``{"class_name": "function", "config": name, ...}`` dict (register the function
        with ``lamina.saving.register_keras_serializable`` to load it back).

    Raises:
        TypeError: If ``activation`` is not callable.

    Example:

    >>> lamina.activations.serialize(lamina.activations.relu)
    'relu'
    """
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
    """Return the activation function a config stands for.

    Args:
        config: A name such as ``"relu"``, or a ``{"class_name": "function",
            "config": name, ...}`` dict.
        custom_objects: An optional dict of name -> function for the user's own
            activations.

    Returns:
        The activation function.

    Example:

    >>> lamina.activations.deserialize("relu") is lamina.activations.relu
    True
    """
    return deserialize_from("activation", config, ALL_OBJECTS, custom_objects)


def get(identifier) -> Callable:
    """Return an activation function from an identifier.

    Args:
        identifier: ``None`` (gives ``linear``), a name such as ``"relu"``, a config
            dict, or a callable (returned as it is; a callable class is instantiated).

    Returns:
        The activation function.

    Raises:
        ValueError: If ``identifier`` names no activation.

    Example:

    >>> lamina.activations.get("relu") is lamina.activations.relu
    True
    """
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
