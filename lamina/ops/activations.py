"""Activation functions with Keras 3's ``keras.ops`` / ``keras.activations`` names and defaults.

``relu`` is a primitive op: it is the hottest activation, and a mask multiply beats every
composition on numpy. The others are compositions of primitives, written in numerically
stable forms (no overflow for large ``|x|``), so their gradients and second derivatives come
from the primitives. Integer inputs become ``floatx()``, except for the piecewise-linear
``relu``, ``relu6``, ``hard_tanh``, ``hard_shrink`` and ``linear``, which keep their dtype.
``sigmoid`` and ``tanh`` live with the other unary functions in :mod:`lamina.ops.math`.
"""
from __future__ import annotations

import numbers

from ..dtypes import floatx, is_float
from .compare import greater, greater_equal
from .core import as_tensor, cast
from .math import (abs, add, divide, exp, expm1, log1p, maximum, minimum, multiply, negative,
                   sigmoid, sqrt, square, subtract, tanh)
from .exponents import erf
from .where_clip import clip, where
from ..core.op import Op, Spec, register_op

__all__ = ["relu", "relu6", "leaky_relu", "elu", "selu", "gelu", "softplus", "softsign",
           "silu", "swish", "hard_sigmoid", "hard_silu", "hard_swish", "exponential",
           "linear", "log_sigmoid", "celu", "hard_tanh", "soft_shrink", "hard_shrink",
           "tanh_shrink", "squareplus", "sparse_plus"]

# Keras's SELU constants (Klambauer et al., 2017), to the digits Keras uses.
SELU_ALPHA = 1.67326324
SELU_SCALE = 1.05070098
_GELU_LINEAR = 1.5957691216057308           # 2 sqrt(2 / pi)
_GELU_CUBIC = 0.07135481627260025           # 2 sqrt(2 / pi) * 0.044715
_INV_SQRT_2 = 0.7071067811865476            # 1 / sqrt(2)


def _number(op_name: str, arg: str, value) -> float:
    """A real number (Python or numpy) as a Python number, which ops treat as weakly typed;
    anything else is a TypeError naming the argument."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{op_name}: argument '{arg}' must be a number; received "
                        f"{value!r} of type {type(value).__name__}")
    return int(value) if isinstance(value, numbers.Integral) else float(value)


def _float_input(op_name: str, x):
    x = as_tensor(op_name, x)
    return x if is_float(x.dtype) else cast(x, floatx())


def _step(condition, like):
    """A bool tensor as 0/1 in ``like``'s dtype (a mask multiply is a cheap ``where``)."""
    return cast(condition, like.dtype)


@register_op
class Relu(Op):
    name = "relu"
    writes_out = True

    def output_spec(self, x):
        return Spec(x.shape, x.dtype)

    def forward(self, backend, x, out=None):
        # x * (x > 0) beats maximum(x, 0) on numpy; it gives -0.0 for negative x (== 0.0)
        # and NaN for NaN, and -inf * 0 = NaN for -inf, which only overflowed inputs reach.
        if out is None:
            return backend.binary("multiply", x, backend.binary("greater", x, 0))
        # the same numbers without a mask temporary: the 0/1 step goes into `out` first
        backend.binary("greater", x, 0, out=out)
        return backend.binary("multiply", x, out, out=out)

    def gradient(self, ctx, g):
        return (multiply(g, _step(greater(ctx.inputs[0], 0), g)),)


def relu(x):
    """``max(x, 0)``: Keras's ``keras.ops.relu``, the ``relu`` primitive (integer input
    keeps its dtype). ``lamina.activations.relu`` takes Keras's activation arguments
    (``negative_slope``, ``max_value``, ``threshold``).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape and dtype.

    Example:

    >>> lamina.ops.relu(np.array([-1, 2])).numpy()
    array([0, 2])
    """
    return Relu(as_tensor("relu", x))


def relu_with_options(x, negative_slope: float = 0.0, max_value: float | None = None,
                      threshold: float = 0.0):
    """``keras.activations.relu``: values below ``threshold`` become
    ``negative_slope * (x - threshold)``, and the result is capped at ``max_value``. With
    the defaults this is the ``relu`` primitive."""
    x = as_tensor("relu", x)
    if (max_value is None and type(negative_slope) in (float, int) and negative_slope == 0
            and type(threshold) in (float, int) and threshold == 0):
        return Relu(x)                 # the common call, without the argument checks below
    negative_slope = _number("relu", "negative_slope", negative_slope)
    threshold = _number("relu", "threshold", threshold)
    if max_value is None:
        if negative_slope == 0 and threshold == 0:
            return Relu(x)
    else:
        max_value = _number("relu", "max_value", max_value)
    # Keras's composition (keras/src/activations/activations.py), step by step.
    if negative_slope != 0 and max_value is None and threshold == 0:
        return leaky_relu(x, negative_slope)
    negative_part = None
    if negative_slope != 0:
        negative_part = Relu(add(negative(x), threshold))
    if threshold != 0:
        y = multiply(x, _step(greater(x, threshold), x))
    else:
        y = Relu(x)
    if max_value is not None:
        y = clip(y, 0, max_value)
    if negative_part is not None:
        y = subtract(y, multiply(negative_part, negative_slope))
    return y


def relu6(x):
    """Rectified linear unit capped at 6: ``min(max(x, 0), 6)``.

    Args:
        x: The input tensor (or array).

    Returns:
        A tensor of the shape of ``x``.

    Example:

    >>> np.round(lamina.activations.relu6(np.array([3.0, 8.0])).numpy(), 4)
    array([3., 6.])
    """
    return clip(as_tensor("relu6", x), 0, 6)


def leaky_relu(x, negative_slope: float = 0.2):
    """Leaky rectified linear unit.

    ``leaky_relu(x) = x`` for ``x >= 0`` and ``negative_slope * x`` below.

    Args:
        x: The input tensor (or array).
        negative_slope: The slope below 0. Defaults to 0.2 (Keras's default).

    Returns:
        A tensor of the shape of ``x``.

    Example:

    >>> x = np.array([-2.0, -0.5, 0.5, 2.0])
    >>> np.round(lamina.activations.leaky_relu(x).numpy(), 4)
    array([-0.4, -0.1,  0.5,  2. ])
    """
    negative_slope = _number("leaky_relu", "negative_slope", negative_slope)
    x = _float_input("leaky_relu", x)
    if 0 <= negative_slope <= 1:
        # slope * x <= x exactly when x >= 0: two ops, and maximum sends ties to x
        return maximum(x, multiply(x, negative_slope))
    # x * (slope + (1 - slope) * [x >= 0]): one mask multiply instead of a where
    step = _step(greater_equal(x, 0), x)
    return multiply(x, add(multiply(step, 1 - negative_slope), negative_slope))


def elu(x, alpha: float = 1.0):
    """Exponential linear unit.

    ``elu(x) = x`` for ``x > 0`` and ``alpha * (exp(x) - 1)`` below; ``exp`` only sees
    ``x <= 0``, so it never overflows.

    Args:
        x: The input tensor (or array).
        alpha: The scale of the negative part. Defaults to 1.0.

    Returns:
        A tensor of the shape of ``x``.

    Example:

    >>> x = np.array([-2.0, -0.5, 0.5, 2.0])
    >>> np.round(lamina.activations.elu(x).numpy(), 4)
    array([-0.8647, -0.3935,  0.5   ,  2.    ])
    """
    alpha = _number("elu", "alpha", alpha)
    x = _float_input("elu", x)
    return add(Relu(x), multiply(expm1(minimum(x, 0)), alpha))


def selu(x):
    """Scaled exponential linear unit.

    ``selu(x) = scale * elu(x, alpha)`` with Keras's constants ``alpha = 1.6732...`` and
    ``scale = 1.0507...``; use it with the ``lecun_normal`` initializer and
    ``AlphaDropout``.

    Args:
        x: The input tensor (or array).

    Returns:
        A tensor of the shape of ``x``.

    Example:

    >>> x = np.array([-2.0, -0.5, 0.5, 2.0])
    >>> np.round(lamina.activations.selu(x).numpy(), 4)
    array([-1.5202, -0.6918,  0.5254,  2.1014])
    """
    return multiply(elu(x, SELU_ALPHA), SELU_SCALE)


def gelu(x, approximate: bool = True):
    """The Gaussian error linear unit ``x * Phi(x)``.

    ``approximate=True`` (Keras's default) is the tanh form
    ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``; ``approximate=False`` is exact,
    ``0.5 x (1 + erf(x / sqrt(2)))``.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        approximate: Whether to use the tanh approximation (True, the default) or the exact
            erf form.

    Returns:
        A tensor of ``x``'s shape (floatx() for integer input).
    """
    x = _float_input("gelu", x)
    if approximate:
        # 0.5 (1 + tanh(z)) = sigmoid(2 z): the same function in fewer ops
        z2 = multiply(x, add(multiply(square(x), _GELU_CUBIC), _GELU_LINEAR))
        return multiply(x, sigmoid(z2))
    return multiply(multiply(x, add(erf(multiply(x, _INV_SQRT_2)), 1)), 0.5)


def softplus(x):
    """Softplus activation: ``log(1 + exp(x))``.

    Computed as ``x + log1p(exp(-x))`` for ``x > 0`` and ``log1p(exp(x))`` otherwise, so
    it never overflows; its gradient is ``sigmoid(x)`` everywhere.

    Args:
        x: The input tensor (or array).

    Returns:
        A tensor of the shape of ``x``.

    Example:

    >>> x = np.array([-2.0, -0.5, 0.5, 2.0])
    >>> np.round(lamina.activations.softplus(x).numpy(), 4)
    array([0.1269, 0.4741, 0.9741, 2.1269])
    """
    x = _float_input("softplus", x)
    positive = greater(x, 0)
    x_pos = where(positive, x, 0.0)
    x_neg = where(positive, 0.0, x)
    return where(positive, add(x_pos, log1p(exp(negative(x_pos)))), log1p(exp(x_neg)))


def softsign(x):
    """Softsign activation: ``x / (1 + |x|)``.

    Args:
        x: The input tensor (or array).

    Returns:
        A tensor of the shape of ``x``.

    Example:

    >>> x = np.array([-2.0, -0.5, 0.5, 2.0])
    >>> np.round(lamina.activations.softsign(x).numpy(), 4)
    array([-0.6667, -0.3333,  0.3333,  0.6667])
    """
    x = _float_input("softsign", x)
    return divide(x, add(abs(x), 1))


def silu(x):
    """SiLU (swish) activation: ``x * sigmoid(x)``.

    ``swish`` is the same function.

    Args:
        x: The input tensor (or array).

    Returns:
        A tensor of the shape of ``x``.

    Example:

    >>> x = np.array([-2.0, -0.5, 0.5, 2.0])
    >>> np.round(lamina.activations.silu(x).numpy(), 4)
    array([-0.2384, -0.1888,  0.3112,  1.7616])
    """
    x = _float_input("silu", x)
    return multiply(x, sigmoid(x))


swish = silu


def hard_sigmoid(x):
    """Hard sigmoid activation: a piecewise-linear sigmoid.

    ``hard_sigmoid(x) = relu6(x + 3) / 6``: 0 below -3, 1 above 3, linear between.

    Args:
        x: The input tensor (or array).

    Returns:
        A tensor of the shape of ``x``.

    Example:

    >>> x = np.array([-2.0, -0.5, 0.5, 2.0])
    >>> np.round(lamina.activations.hard_sigmoid(x).numpy(), 4)
    array([0.1667, 0.4167, 0.5833, 0.8333])
    """
    x = _float_input("hard_sigmoid", x)
    return divide(relu6(add(x, 3)), 6)


def hard_silu(x):
    """Hard SiLU (hard swish) activation: ``x * hard_sigmoid(x)``.

    ``hard_swish`` is the same function.

    Args:
        x: The input tensor (or array).

    Returns:
        A tensor of the shape of ``x``.

    Example:

    >>> x = np.array([-2.0, -0.5, 0.5, 2.0])
    >>> np.round(lamina.activations.hard_silu(x).numpy(), 4)
    array([-0.3333, -0.2083,  0.2917,  1.6667])
    """
    x = _float_input("hard_silu", x)
    return multiply(x, hard_sigmoid(x))


hard_swish = hard_silu


def exponential(x):
    """Exponential activation: ``exp(x)``.

    Args:
        x: The input tensor (or array).

    Returns:
        A tensor of the shape of ``x``.

    Example:

    >>> x = np.array([-2.0, -0.5, 0.5, 2.0])
    >>> np.round(lamina.activations.exponential(x).numpy(), 4)
    array([0.1353, 0.6065, 1.6487, 7.3891])
    """
    return exp(x)


def linear(x):
    """Linear (identity) activation: returns ``x`` unchanged, as a tensor.

    ``activation=None`` in a layer means this function.

    Args:
        x: The input tensor (or array).

    Returns:
        ``x`` as a tensor.

    Example:

    >>> x = np.array([-2.0, -0.5, 0.5, 2.0])
    >>> np.round(lamina.activations.linear(x).numpy(), 4)
    array([-2. , -0.5,  0.5,  2. ])
    """
    return as_tensor("linear", x)


def log_sigmoid(x):
    """Logarithm of the sigmoid: ``log(sigmoid(x)) = -softplus(-x)``.

    Computed stably for large ``|x|``.

    Args:
        x: The input tensor (or array).

    Returns:
        A tensor of the shape of ``x``.

    Example:

    >>> x = np.array([-2.0, -0.5, 0.5, 2.0])
    >>> np.round(lamina.activations.log_sigmoid(x).numpy(), 4)
    array([-2.1269, -0.9741, -0.4741, -0.1269])
    """
    return negative(softplus(negative(_float_input("log_sigmoid", x))))


def celu(x, alpha: float = 1.0):
    """Continuously differentiable exponential linear unit.

    ``celu(x) = max(x, 0) + alpha * (exp(min(x, 0) / alpha) - 1)``.

    Args:
        x: The input tensor (or array).
        alpha: The scale of the negative part, a nonzero number. Defaults to 1.0.

    Returns:
        A tensor of the shape of ``x``.

    Example:

    >>> x = np.array([-2.0, -0.5, 0.5, 2.0])
    >>> np.round(lamina.activations.celu(x, alpha=0.5).numpy(), 4)
    array([-0.4908, -0.3161,  0.5   ,  2.    ])
    """
    alpha = _number("celu", "alpha", alpha)
    x = _float_input("celu", x)
    return add(Relu(x), multiply(expm1(divide(minimum(x, 0), alpha)), alpha))


def hard_tanh(x):
    """Hard tanh activation: ``clip(x, -1, 1)``.

    Args:
        x: The input tensor (or array).

    Returns:
        A tensor of the shape of ``x``.

    Example:

    >>> x = np.array([-2.0, -0.5, 0.5, 2.0])
    >>> np.round(lamina.activations.hard_tanh(x).numpy(), 4)
    array([-1. , -0.5,  0.5,  1. ])
    """
    return clip(as_tensor("hard_tanh", x), -1, 1)


def soft_shrink(x, threshold: float = 0.5):
    """Soft shrink activation: moves ``x`` toward 0 by ``threshold``.

    ``x - threshold`` above ``threshold``, ``x + threshold`` below ``-threshold``, else 0.

    Args:
        x: The input tensor (or array).
        threshold: The amount subtracted from ``|x|``. Defaults to 0.5.

    Returns:
        A tensor of the shape of ``x``.

    Example:

    >>> np.round(lamina.activations.soft_shrink(np.array([-2.0, 2.0])).numpy(), 4)
    array([-1.5,  1.5])
    """
    threshold = _number("soft_shrink", "threshold", threshold)
    x = _float_input("soft_shrink", x)
    return subtract(Relu(subtract(x, threshold)), Relu(subtract(negative(x), threshold)))


def hard_shrink(x, threshold: float = 0.5):
    """Hard shrink activation: ``x`` where ``|x| > threshold``, else 0.

    Args:
        x: The input tensor (or array).
        threshold: The size below which values become 0. Defaults to 0.5.

    Returns:
        A tensor of the shape of ``x``.

    Example:

    >>> np.round(lamina.activations.hard_shrink(np.array([-2.0, 0.75, 2.0])).numpy(), 4)
    array([-2.  ,  0.75,  2.  ])
    """
    threshold = _number("hard_shrink", "threshold", threshold)
    x = as_tensor("hard_shrink", x)
    return multiply(x, _step(greater(abs(x), threshold), x))


def tanh_shrink(x):
    """Tanh shrink activation: ``x - tanh(x)``.

    Args:
        x: The input tensor (or array).

    Returns:
        A tensor of the shape of ``x``.

    Example:

    >>> x = np.array([-2.0, -0.5, 0.5, 2.0])
    >>> np.round(lamina.activations.tanh_shrink(x).numpy(), 4)
    array([-1.036 , -0.0379,  0.0379,  1.036 ])
    """
    x = _float_input("tanh_shrink", x)
    return subtract(x, tanh(x))


def squareplus(x, b: float = 4):
    """Squareplus activation: ``(x + sqrt(x^2 + b)) / 2``, a smooth relu.

    Args:
        x: The input tensor (or array).
        b: The smoothness, a number ``>= 0``; ``b = 0`` gives relu. Defaults to 4.

    Returns:
        A tensor of the shape of ``x``.

    Example:

    >>> x = np.array([-2.0, -0.5, 0.5, 2.0])
    >>> np.round(lamina.activations.squareplus(x).numpy(), 4)
    array([0.4142, 0.7808, 1.2808, 2.4142])
    """
    b = _number("squareplus", "b", b)
    x = _float_input("squareplus", x)
    return multiply(add(x, sqrt(add(square(x), b))), 0.5)


def sparse_plus(x):
    """SparsePlus activation: a smooth relu that is exactly 0 below -1.

    0 for ``x <= -1``, ``(x + 1)^2 / 4`` for ``-1 < x < 1``, ``x`` for ``x >= 1``.

    Args:
        x: The input tensor (or array).

    Returns:
        A tensor of the shape of ``x``.

    Example:

    >>> x = np.array([-2.0, -0.5, 0.5, 2.0])
    >>> np.round(lamina.activations.sparse_plus(x).numpy(), 4)
    array([0.    , 0.0625, 0.5625, 2.    ])
    """
    x = _float_input("sparse_plus", x)
    # the quadratic piece of clip(x, -1, 1), plus the linear part beyond 1
    inner = clip(x, -1, 1)
    return add(multiply(square(add(inner, 1)), 0.25), Relu(subtract(x, 1)))
