"""Elementwise functions about the parts of numbers: ``fabs``, ``trunc``, ``signbit``,
``isposinf``/``isneginf``, ``nextafter``, ``nan_to_num``, ``fmod``, ``fmax``/``fmin``,
``heaviside`` and ``divide_no_nan``, as Keras 3's ``keras.ops``. (The complex-number views
``real``, ``imag``, ``conj``, ``angle`` and ``isreal`` are in ``complex_numbers.py``.)
"""
from __future__ import annotations


from ..dtypes import FLOAT_MAX, is_float
from ..errors import DTypeError
from .compare import Predicate, equal, greater, isinf, isnan, less, logical_and
from .core import as_tensor, as_tensors, cast, full_like, unchanged
from .elementwise import Binary, Unary, unbroadcast
from .math import abs as abs_, divide, maximum, minimum, multiply, negative
from .where_clip import where
from ..core.op import Spec, register_op
from .trig import to_float, to_floats

__all__ = ["fabs", "trunc", "signbit", "isposinf", "isneginf", "nextafter", "nan_to_num",
           "fmod", "fmax", "fmin", "heaviside", "divide_no_nan"]

# The largest finite value of each float dtype (nan_to_num's default for infinities).
_FLOAT_MAX = FLOAT_MAX


@register_op
class Trunc(Unary):
    name = "trunc"
    differentiable = False

    def output_spec(self, x):
        if not is_float(x.dtype):
            raise DTypeError(f"trunc: argument 'x' must be a floating-point tensor "
                             f"(lamina.ops.trunc accepts others); received dtype {x.dtype}")
        return Spec(x.shape, x.dtype)


@register_op
class Signbit(Predicate):
    name = "signbit"


@register_op
class NextAfter(Binary):
    name = "nextafter"
    differentiable = False


@register_op
class Fmod(Binary):
    name = "fmod"

    def gradient(self, ctx, g):
        # fmod(a, b) = a - b * trunc(a / b): 1 for a, -trunc(a / b) for b
        a, b = ctx.inputs
        ga = unbroadcast(g, a) if ctx.needs_grad[0] else None
        gb = None
        if ctx.needs_grad[1]:
            gb = unbroadcast(negative(multiply(g, Trunc(divide(a, b)))), b)
        return ga, gb


def fabs(x):
    """``|x|`` as a float: integer input gives floatx(); the gradient is ``sign(x)``.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    return abs_(to_float("fabs", x))


def trunc(x):
    """``x`` rounded towards zero; integer and bool input is returned as it is; no gradient.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    x = as_tensor("trunc", x)
    return Trunc(x) if is_float(x.dtype) else unchanged(x)


def signbit(x):
    """True where the sign bit of ``x`` is set (negative numbers, -0.0 and -NaN).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A bool tensor of ``x``'s shape.
    """
    x = as_tensor("signbit", x)
    if x.dtype == "bool":
        return full_like(x, False, dtype="bool")
    if not is_float(x.dtype):
        return less(x, 0)
    return Signbit(x)


def isposinf(x):
    """True where ``x`` is +inf (never for integer or bool input).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A bool tensor of ``x``'s shape.
    """
    x = as_tensor("isposinf", x)
    if not is_float(x.dtype):
        return full_like(x, False, dtype="bool")
    return logical_and(isinf(x), greater(x, 0))


def isneginf(x):
    """True where ``x`` is -inf (never for integer or bool input).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A bool tensor of ``x``'s shape.
    """
    x = as_tensor("isneginf", x)
    if not is_float(x.dtype):
        return full_like(x, False, dtype="bool")
    return logical_and(isinf(x), less(x, 0))


def nextafter(x1, x2):
    """The next float after ``x1`` in the direction of ``x2``; integers give floatx().

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A tensor of the broadcast shape of ``x1`` and ``x2``.
    """
    return NextAfter(*to_floats("nextafter", x1, x2))


def _number(arg: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"nan_to_num: argument '{arg}' must be a number or None; "
                        f"received {value!r}")
    return float(value)


def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    """NaN replaced by ``nan``, +inf by ``posinf`` and -inf by ``neginf`` (by default the
    largest and the most negative finite value of ``x``'s dtype). Integer and bool input is
    returned as it is. The gradient passes where ``x`` was finite.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        nan: The value for NaN. Defaults to 0.0.
        posinf: The value for +inf; None means the dtype's largest finite value.
        neginf: The value for -inf; None means the dtype's most negative finite value.

    Returns:
        A tensor of ``x``'s shape and dtype.
    """
    x = as_tensor("nan_to_num", x)
    nan = _number("nan", nan)
    posinf = None if posinf is None else _number("posinf", posinf)
    neginf = None if neginf is None else _number("neginf", neginf)
    if not is_float(x.dtype):
        return unchanged(x)
    big = _FLOAT_MAX[x.dtype]
    posinf = big if posinf is None else posinf
    neginf = -big if neginf is None else neginf
    infinite = isinf(x)
    y = where(logical_and(infinite, greater(x, 0)), posinf, x)
    y = where(logical_and(infinite, less(x, 0)), neginf, y)
    return where(isnan(x), nan, y)


def fmod(x1, x2):
    """The remainder of ``x1 / x2`` rounded towards zero (the sign of ``x1``), as C's
    fmod; integer tensors stay integers (``fmod(x, 0)`` is 0 for them).

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A tensor of the broadcast shape of ``x1`` and ``x2``.
    """
    a, b = as_tensors("fmod", x1, x2)
    if a.dtype == "bool":
        a, b = cast(a, "int32"), cast(b, "int32")
    return Fmod(a, b)


def _nan_aware(op_name: str, pick, x1, x2):
    a, b = as_tensors(op_name, x1, x2)
    if not is_float(a.dtype):
        return pick(a, b)
    # NaN loses to a number; two NaNs give NaN
    return where(isnan(b), a, where(isnan(a), b, pick(a, b)))


def fmax(x1, x2):
    """The elementwise maximum, ignoring NaN (NaN only where both are NaN).

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A tensor of the broadcast shape of ``x1`` and ``x2``.
    """
    return _nan_aware("fmax", maximum, x1, x2)


def fmin(x1, x2):
    """The elementwise minimum, ignoring NaN (NaN only where both are NaN).

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A tensor of the broadcast shape of ``x1`` and ``x2``.
    """
    return _nan_aware("fmin", minimum, x1, x2)


def heaviside(x1, x2):
    """The step function: 0 where ``x1 < 0``, ``x2`` where ``x1 == 0``, 1 where
    ``x1 > 0`` (NaN stays NaN); integers give floatx(). The gradient flows to ``x2``.

    Args:
        x1: Input tensor.
        x2: The value taken where ``x1`` is 0; broadcasts with ``x1``.

    Returns:
        A tensor of the broadcast shape of ``x1`` and ``x2``.
    """
    a, b = to_floats("heaviside", x1, x2)
    step = where(less(a, 0), 0.0, where(greater(a, 0), 1.0, b))
    return where(isnan(a), a, step)


def divide_no_nan(x1, x2):
    """``x1 / x2``, with 0 wherever ``x2`` is 0 (no inf or NaN there, nor in the
    gradient); integers give floatx().

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A tensor of the broadcast shape of ``x1`` and ``x2``.
    """
    a, b = to_floats("divide_no_nan", x1, x2)
    zero = equal(b, 0)
    return where(zero, 0.0, divide(a, where(zero, 1.0, b)))
