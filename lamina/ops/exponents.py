"""Powers, logarithms of sums and special functions: ``cbrt``, ``exp2``, ``logaddexp``,
``logaddexp2``, ``ldexp``, ``erfc``, ``erfinv`` and the Bessel function ``i0``, as Keras 3's
``keras.ops``. Integer and bool inputs become ``floatx()`` (``ldexp``'s exponent must be an
integer tensor, as in Keras).
"""
from __future__ import annotations

import math as _math

from ..backend import special_more
from ..dtypes import is_int, standardize
from ..errors import DTypeError
from .compare import equal
from .core import as_tensor, cast
from .elementwise import Binary, unbroadcast
from .math import FloatUnary, divide, exp, log, multiply, negative, power, square, subtract
from .where_clip import where
from ..core.op import register_op
from .trig import to_float, to_floats

_TWO_OVER_SQRT_PI = 1.1283791670955126      # 2 / sqrt(pi): erf's derivative at 0
_INV_LN2 = 1.4426950408889634               # 1 / log(2)
_INV_LN10 = 0.4342944819032518              # 1 / log(10)

__all__ = ["erf", "log2", "log10", "cbrt", "exp2", "logaddexp", "logaddexp2", "ldexp", "erfc", "erfinv", "i0"]

_LN2 = _math.log(2.0)
_TWO_OVER_SQRT_PI = 2.0 / _math.sqrt(_math.pi)
_SQRT_PI_OVER_TWO = _math.sqrt(_math.pi) / 2.0


@register_op
class Cbrt(FloatUnary):
    name = "cbrt"

    def gradient(self, ctx, g):
        # d x**(1/3) = 1 / (3 y**2); infinite at 0, as in every framework
        return (divide(g, multiply(square(ctx.outputs[0]), 3.0)),)


@register_op
class Exp2(FloatUnary):
    name = "exp2"

    def gradient(self, ctx, g):
        return (multiply(g, multiply(ctx.outputs[0], _LN2)),)


@register_op
class Erfc(FloatUnary):
    name = "erfc"

    def forward(self, backend, x, out=None):
        return special_more.erfc(backend.xp, x, out)

    def gradient(self, ctx, g):
        x = ctx.inputs[0]
        return (multiply(g, multiply(exp(negative(square(x))), -_TWO_OVER_SQRT_PI)),)


@register_op
class Erfinv(FloatUnary):
    name = "erfinv"

    def forward(self, backend, x, out=None):
        return special_more.erfinv(backend.xp, x, out)

    def gradient(self, ctx, g):
        y = ctx.outputs[0]
        return (multiply(g, multiply(exp(square(y)), _SQRT_PI_OVER_TWO)),)


@register_op
class I0(FloatUnary):
    name = "i0"

    def forward(self, backend, x, out=None):
        return special_more.bessel_i(backend.xp, 0, x, out)

    def gradient(self, ctx, g):
        return (multiply(g, I1(ctx.inputs[0])),)


@register_op
class I1(FloatUnary):
    """The modified Bessel function of order 1: ``i0``'s derivative."""
    name = "i1"

    def forward(self, backend, x, out=None):
        return special_more.bessel_i(backend.xp, 1, x, out)

    def gradient(self, ctx, g):
        # i1' = i0 - i1 / x, which tends to 1/2 at x = 0
        x, y = ctx.inputs[0], ctx.outputs[0]
        zero = equal(x, 0)
        ratio = where(zero, 0.5, divide(y, where(zero, 1.0, x)))
        return (multiply(g, subtract(I0(x), ratio)),)


@register_op
class LogAddExp(Binary):
    name = "logaddexp"

    def gradient(self, ctx, g):
        a, b = ctx.inputs
        y = ctx.outputs[0]
        ga = unbroadcast(multiply(g, exp(subtract(a, y))), a) if ctx.needs_grad[0] else None
        gb = unbroadcast(multiply(g, exp(subtract(b, y))), b) if ctx.needs_grad[1] else None
        return ga, gb


@register_op
class LogAddExp2(Binary):
    name = "logaddexp2"

    def gradient(self, ctx, g):
        a, b = ctx.inputs
        y = ctx.outputs[0]
        ga = unbroadcast(multiply(g, Exp2(subtract(a, y))), a) if ctx.needs_grad[0] else None
        gb = unbroadcast(multiply(g, Exp2(subtract(b, y))), b) if ctx.needs_grad[1] else None
        return ga, gb


def cbrt(x):
    """The real cube root (negative for negative ``x``); integer input gives floatx().

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    return Cbrt(to_float("cbrt", x))


def exp2(x):
    """``2 ** x``; integer input gives floatx().

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    return Exp2(to_float("exp2", x))


def logaddexp(x1, x2):
    """``log(exp(x1) + exp(x2))`` without overflow (numpy's ufunc: equal infinities give
    that infinity); integers give floatx(). The gradient is ``exp(x1 - y)`` for ``x1``
    (``sigmoid(x1 - x2)``), 1/2 each at a tie.

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A tensor of the broadcast shape of ``x1`` and ``x2``.
    """
    return LogAddExp(*to_floats("logaddexp", x1, x2))


def logaddexp2(x1, x2):
    """``log2(2**x1 + 2**x2)`` without overflow; integers give floatx().

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A tensor of the broadcast shape of ``x1`` and ``x2``.
    """
    return LogAddExp2(*to_floats("logaddexp2", x1, x2))


def ldexp(x1, x2):
    """``x1 * 2**x2`` for an integer tensor (or Python int) ``x2``; integer ``x1`` gives
    floatx(). The gradient flows to ``x1`` only.

    Args:
        x1: The mantissas.
        x2: The integer exponents; broadcasts with ``x1``.

    Returns:
        A tensor of the broadcast shape of ``x1`` and ``x2``.
    """
    x1 = to_float("ldexp", x1)
    dtype = standardize(x2.dtype) if hasattr(x2, "dtype") else type(x2).__name__
    if isinstance(x2, bool) or not (isinstance(x2, int) or is_int(dtype)):
        received = dtype
        raise DTypeError(f"ldexp: argument 'x2' (the exponent) must be an integer tensor or "
                         f"int; received {received}")
    x2 = as_tensor("ldexp", x2) if not isinstance(x2, int) else x2
    scale = power(2.0, x2) if isinstance(x2, int) else power(2.0, cast(x2, x1.dtype))
    return multiply(x1, scale)


def erfc(x):
    """The complementary error function ``1 - erf(x)``, accurate in the tail (float64
    round-off up to x ~ 26); integer input gives floatx().

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    return Erfc(to_float("erfc", x))


def erfinv(x):
    """The inverse error function on ``[-1, 1]`` (+-inf at +-1, NaN outside); integer
    input gives floatx().

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    return Erfinv(to_float("erfinv", x))


def i0(x):
    """The modified Bessel function of the first kind, order 0; integer input gives
    floatx(). Its gradient is ``i1``.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    return I0(to_float("i0", x))


@register_op
class Erf(FloatUnary):
    name = "erf"

    def gradient(self, ctx, g):
        x = ctx.inputs[0]
        return (multiply(g, multiply(exp(negative(square(x))), _TWO_OVER_SQRT_PI)),)


def log2(x):
    """Base-2 logarithm (``log(x) / log(2)``); integer input gives floatx().

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    return multiply(log(x), _INV_LN2)


def log10(x):
    """Base-10 logarithm (``log(x) / log(10)``); integer input gives floatx().

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    return multiply(log(x), _INV_LN10)


def erf(x):
    """The error function, to float64 round-off; integer input gives floatx().

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    return Erf(to_float("erf", x))
