"""Trigonometric and hyperbolic functions and their inverses, angle conversions, ``sinc``
and ``hypot``, as Keras 3's ``keras.ops``.

Integer and bool inputs become ``floatx()`` first (float inputs keep their dtype); each
primitive is a numpy/cupy ufunc of the same name, and its gradient is written with ops.
"""
from __future__ import annotations

import math as _math

from ..dtypes import floatx, is_complex, is_float
from ..errors import DTypeError
from .core import as_tensor, as_tensors, cast
from .elementwise import Binary, unbroadcast
from .math import FloatUnary, add, divide, multiply, negative, sqrt, square, subtract
from .where_clip import where
from .compare import equal
from ..core.op import register_op

__all__ = ["sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh", "arcsinh",
           "arccosh", "arctanh", "deg2rad", "rad2deg", "sinc", "hypot"]

_DEG = _math.pi / 180.0


def to_float(op_name: str, x):
    """``x`` as a tensor, integers and bools converted to floatx() as Keras does; complex
    tensors are refused (these are real functions)."""
    x = as_tensor(op_name, x)
    _refuse_complex(op_name, "argument 'x' must be a real tensor", x)
    return x if is_float(x.dtype) else cast(x, floatx())


def _refuse_complex(op_name: str, expected: str, x) -> None:
    if is_complex(x.dtype):
        raise DTypeError(f"{op_name}: {expected} (complex tensors are not supported by this "
                         f"op); received dtype {x.dtype}")


def to_floats(op_name: str, x1, x2):
    """Two operands promoted to one dtype, then to floatx() when that is not a float."""
    a, b = as_tensors(op_name, x1, x2)
    _refuse_complex(op_name, "arguments must be real tensors", a)
    if not is_float(a.dtype):
        a, b = cast(a, floatx()), cast(b, floatx())
    return a, b


@register_op
class Tan(FloatUnary):
    name = "tan"

    def gradient(self, ctx, g):
        return (multiply(g, add(square(ctx.outputs[0]), 1)),)


@register_op
class Arcsin(FloatUnary):
    name = "arcsin"

    def gradient(self, ctx, g):
        return (divide(g, sqrt(subtract(1, square(ctx.inputs[0])))),)


@register_op
class Arccos(FloatUnary):
    name = "arccos"

    def gradient(self, ctx, g):
        return (negative(divide(g, sqrt(subtract(1, square(ctx.inputs[0]))))),)


@register_op
class Arctan(FloatUnary):
    name = "arctan"

    def gradient(self, ctx, g):
        return (divide(g, add(square(ctx.inputs[0]), 1)),)


@register_op
class Sinh(FloatUnary):
    name = "sinh"

    def gradient(self, ctx, g):
        return (multiply(g, cosh(ctx.inputs[0])),)


@register_op
class Cosh(FloatUnary):
    name = "cosh"

    def gradient(self, ctx, g):
        return (multiply(g, sinh(ctx.inputs[0])),)


@register_op
class Arcsinh(FloatUnary):
    name = "arcsinh"

    def gradient(self, ctx, g):
        return (divide(g, sqrt(add(square(ctx.inputs[0]), 1))),)


@register_op
class Arccosh(FloatUnary):
    name = "arccosh"

    def gradient(self, ctx, g):
        return (divide(g, sqrt(subtract(square(ctx.inputs[0]), 1))),)


@register_op
class Arctanh(FloatUnary):
    name = "arctanh"

    def gradient(self, ctx, g):
        return (divide(g, subtract(1, square(ctx.inputs[0]))),)


@register_op
class Arctan2(Binary):
    name = "arctan2"

    def gradient(self, ctx, g):
        y, x = ctx.inputs
        r2 = add(square(y), square(x))
        gy = unbroadcast(divide(multiply(g, x), r2), y) if ctx.needs_grad[0] else None
        gx = unbroadcast(negative(divide(multiply(g, y), r2)), x) if ctx.needs_grad[1] \
            else None
        return gy, gx


@register_op
class Hypot(Binary):
    name = "hypot"

    def gradient(self, ctx, g):
        a, b = ctx.inputs
        scale = divide(g, ctx.outputs[0])
        ga = unbroadcast(multiply(scale, a), a) if ctx.needs_grad[0] else None
        gb = unbroadcast(multiply(scale, b), b) if ctx.needs_grad[1] else None
        return ga, gb


def tan(x):
    """Tangent (radians); integer input gives floatx().

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    return Tan(to_float("tan", x))


def arcsin(x):
    """Inverse sine, in ``[-pi/2, pi/2]`` (NaN outside ``[-1, 1]``).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    return Arcsin(to_float("arcsin", x))


def arccos(x):
    """Inverse cosine, in ``[0, pi]`` (NaN outside ``[-1, 1]``).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    return Arccos(to_float("arccos", x))


def arctan(x):
    """Inverse tangent, in ``(-pi/2, pi/2)``.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    return Arctan(to_float("arctan", x))


def arctan2(x1, x2):
    """The angle of the point ``(x2, x1)``, in ``[-pi, pi]``, quadrant-aware.

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A tensor of the broadcast shape of ``x1`` and ``x2``.
    """
    return Arctan2(*to_floats("arctan2", x1, x2))


def sinh(x):
    """Hyperbolic sine; integer input gives floatx().

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    return Sinh(to_float("sinh", x))


def cosh(x):
    """Hyperbolic cosine; integer input gives floatx().

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    return Cosh(to_float("cosh", x))


def arcsinh(x):
    """Inverse hyperbolic sine.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    return Arcsinh(to_float("arcsinh", x))


def arccosh(x):
    """Inverse hyperbolic cosine (NaN below 1).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    return Arccosh(to_float("arccosh", x))


def arctanh(x):
    """Inverse hyperbolic tangent (NaN outside ``[-1, 1]``).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    return Arctanh(to_float("arctanh", x))


def deg2rad(x):
    """Degrees to radians: ``x * pi / 180``; integer input gives floatx().

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    return multiply(to_float("deg2rad", x), _DEG)


def rad2deg(x):
    """Radians to degrees: ``x * 180 / pi``; integer input gives floatx().

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    return multiply(to_float("rad2deg", x), 1.0 / _DEG)


def sinc(x):
    """The normalized sinc, ``sin(pi x) / (pi x)``, 1 at 0 (its limit; gradient 0 there).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    x = to_float("sinc", x)
    zero = equal(x, 0)
    t = multiply(where(zero, 1.0, x), _math.pi)      # no 0/0 where x == 0, nor in the gradient
    return where(zero, 1.0, divide(sin(t), t))


def hypot(x1, x2):
    """``sqrt(x1**2 + x2**2)`` without intermediate overflow; integers give floatx().

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A tensor of the broadcast shape of ``x1`` and ``x2``.
    """
    return Hypot(*to_floats("hypot", x1, x2))


@register_op
class Sin(FloatUnary):
    name = "sin"

    def gradient(self, ctx, g):
        return (multiply(g, cos(ctx.inputs[0])),)


@register_op
class Cos(FloatUnary):
    name = "cos"

    def gradient(self, ctx, g):
        return (negative(multiply(g, sin(ctx.inputs[0]))),)


def sin(x):
    """Sine (radians); integer input gives floatx().

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    return Sin(to_float("sin", x))


def cos(x):
    """Cosine (radians); integer input gives floatx().

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    return Cos(to_float("cos", x))
