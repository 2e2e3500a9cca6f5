"""Bitwise operations on integer (and, for the logical ones, bool) tensors, and the integer
``gcd``/``lcm``, as Keras 3's ``keras.ops``. None has a gradient; a float input is an error
naming the op, as in Keras.
"""
from __future__ import annotations

from ..dtypes import is_int
from ..errors import DTypeError
from .core import as_tensor, as_tensors
from .elementwise import Binary, Unary
from ..core.op import Spec, register_op

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_invert",
           "bitwise_left_shift", "bitwise_right_shift", "left_shift", "right_shift", "gcd",
           "lcm"]


def _check(op_name: str, arg: str, x, allow_bool: bool) -> None:
    if is_int(x.dtype) or (allow_bool and x.dtype == "bool"):
        return
    kinds = "an integer or bool" if allow_bool else "an integer"
    raise DTypeError(f"{op_name}: argument '{arg}' must be {kinds} tensor; received dtype "
                     f"{x.dtype}")


class IntegerBinary(Binary):
    differentiable = False
    allow_bool = False
    args = ("x", "y")

    def output_spec(self, a, b):
        _check(self.name, self.args[0], a, self.allow_bool)
        _check(self.name, self.args[1], b, self.allow_bool)
        return super().output_spec(a, b)


@register_op
class BitwiseAnd(IntegerBinary):
    name = "bitwise_and"
    allow_bool = True


@register_op
class BitwiseOr(IntegerBinary):
    name = "bitwise_or"
    allow_bool = True


@register_op
class BitwiseXor(IntegerBinary):
    name = "bitwise_xor"
    allow_bool = True


@register_op
class LeftShift(IntegerBinary):
    name = "left_shift"


@register_op
class RightShift(IntegerBinary):
    name = "right_shift"


@register_op
class Gcd(IntegerBinary):
    name = "gcd"
    args = ("x1", "x2")


@register_op
class Lcm(IntegerBinary):
    name = "lcm"
    args = ("x1", "x2")


@register_op
class Invert(Unary):
    name = "bitwise_invert"
    kernel = "invert"
    differentiable = False

    def output_spec(self, x):
        _check(self.name, "x", x, True)
        return Spec(x.shape, x.dtype)


def _binary(op, op_name: str, x, y):
    a, b = as_tensors(op_name, x, y)
    for arg, t in zip(op.args, (a, b)):
        _check(op_name, arg, t, op.allow_bool)
    return op(a, b)


def bitwise_and(x, y):
    """Elementwise AND of the bits of two integer (or bool) tensors.

    Args:
        x: An integer (or bool) tensor.
        y: An integer (or bool) tensor; broadcasts with ``x``.

    Returns:
        A tensor of the broadcast shape of ``x`` and ``y``, in their promoted dtype.
    """
    return _binary(BitwiseAnd, "bitwise_and", x, y)


def bitwise_or(x, y):
    """Elementwise OR of the bits of two integer (or bool) tensors.

    Args:
        x: An integer (or bool) tensor.
        y: An integer (or bool) tensor; broadcasts with ``x``.

    Returns:
        A tensor of the broadcast shape of ``x`` and ``y``, in their promoted dtype.
    """
    return _binary(BitwiseOr, "bitwise_or", x, y)


def bitwise_xor(x, y):
    """Elementwise XOR of the bits of two integer (or bool) tensors.

    Args:
        x: An integer (or bool) tensor.
        y: An integer (or bool) tensor; broadcasts with ``x``.

    Returns:
        A tensor of the broadcast shape of ``x`` and ``y``, in their promoted dtype.
    """
    return _binary(BitwiseXor, "bitwise_xor", x, y)


def bitwise_invert(x):
    """Flip every bit of an integer tensor (NOT for bools): ``~x``, which is ``-x - 1``
    for signed integers.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    x = as_tensor("bitwise_invert", x)
    _check("bitwise_invert", "x", x, True)
    return Invert(x)


bitwise_not = bitwise_invert


def bitwise_left_shift(x, y):
    """``x << y`` elementwise, integer tensors.

    Args:
        x: An integer (or bool) tensor.
        y: The shift amounts, integers; broadcast with ``x``.

    Returns:
        A tensor of the broadcast shape of ``x`` and ``y``, in their promoted dtype.
    """
    return _binary(LeftShift, "left_shift", x, y)


def bitwise_right_shift(x, y):
    """``x >> y`` elementwise (arithmetic for signed integers), integer tensors.

    Args:
        x: An integer (or bool) tensor.
        y: The shift amounts, integers; broadcast with ``x``.

    Returns:
        A tensor of the broadcast shape of ``x`` and ``y``, in their promoted dtype.
    """
    return _binary(RightShift, "right_shift", x, y)


left_shift = bitwise_left_shift
right_shift = bitwise_right_shift


def gcd(x1, x2):
    """The greatest common divisor of two integer tensors (non-negative; gcd(0, 0) = 0).

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A tensor of the broadcast shape of ``x1`` and ``x2``.
    """
    return _binary(Gcd, "gcd", x1, x2)


def lcm(x1, x2):
    """The least common multiple of two integer tensors (non-negative; 0 if either is 0).

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A tensor of the broadcast shape of ``x1`` and ``x2``.
    """
    return _binary(Lcm, "lcm", x1, x2)
