"""Rounding: ``floor``, ``ceil`` and ``round`` (half to even, as numpy and Keras, with
``decimals``). They have no gradient: a rounded value is piecewise constant."""
from __future__ import annotations

from ..dtypes import is_float
from .core import as_tensor, cast, unchanged
from .elementwise import Unary
from .math import FloatUnary, divide, multiply
from .trig import to_float
from ..core.op import register_op

__all__ = ["floor", "ceil", "round"]


@register_op
class Floor(FloatUnary):
    name = "floor"
    differentiable = False


@register_op
class Ceil(FloatUnary):
    name = "ceil"
    differentiable = False


@register_op
class Round(Unary):
    name = "round"
    differentiable = False


def floor(x):
    """The largest integer <= ``x``, as a float (integer input gives floatx()); no gradient.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    return Floor(to_float("floor", x))


def ceil(x):
    """The smallest integer >= ``x``, as a float (integer input gives floatx()); no gradient.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    return Ceil(to_float("ceil", x))


def round(x, decimals: int = 0):
    """Round half to even to ``decimals`` places, as numpy; keeps ``x``'s dtype; no gradient.

    Integer input with ``decimals >= 0`` is returned unchanged; negative ``decimals`` round
    to tens, hundreds, ... .

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        decimals: The number of decimal places (negative for tens, hundreds, ...). Defaults
            to 0.

    Returns:
        A tensor of ``x``'s shape and dtype.
    """
    x = as_tensor("round", x)
    if not isinstance(decimals, int) or isinstance(decimals, bool):
        raise TypeError(f"round: argument 'decimals' must be an int; received {decimals!r}")
    if decimals == 0:
        return Round(x)
    if not is_float(x.dtype):
        if decimals > 0:
            return unchanged(x)
        # round in float64, which holds every int32 exactly, then come back
        return cast(round(cast(x, "float64"), decimals), x.dtype)
    if decimals > 0:
        scale = 10.0 ** decimals
        return divide(Round(multiply(x, scale)), scale)
    scale = 10.0 ** -decimals
    return multiply(Round(divide(x, scale)), scale)
