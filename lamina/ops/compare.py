"""Comparisons, logical ops and float predicates: elementwise, bool results, no gradients.

Comparisons promote their operands as arithmetic does (``int_tensor < 2.5`` compares in
float32) and broadcast as numpy. Logical ops treat their operands as truth values: anything
that is not bool is cast to bool first (nonzero is true), as Keras does.
"""
from __future__ import annotations

from ..dtypes import floatx, is_float
from ..errors import DTypeError
from .core import as_tensor, as_tensors, cast
from .elementwise import Binary, Unary
from ..core.op import Spec, register_op

__all__ = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
           "logical_and", "logical_or", "logical_xor", "logical_not", "isnan", "isinf",
           "isfinite"]


class Comparison(Binary):
    result_dtype = "bool"
    differentiable = False


class Logical(Binary):
    result_dtype = "bool"
    differentiable = False

    def output_spec(self, a, b):
        for arg, t in (("x1", a), ("x2", b)):
            if t.dtype != "bool":
                raise DTypeError(f"{self.name}: argument '{arg}' must be a bool tensor "
                                 f"(lamina.ops.{self.name} casts it); received dtype {t.dtype}")
        return super().output_spec(a, b)


class Predicate(Unary):
    """A float test (isnan, ...): float input, bool output."""
    result_dtype = "bool"
    differentiable = False

    def output_spec(self, x):
        if not is_float(x.dtype):
            raise DTypeError(f"{self.name}: argument 'x' must be a floating-point tensor "
                             f"(lamina.ops.{self.name} accepts others); received dtype {x.dtype}")
        return Spec(x.shape, "bool")


@register_op
class Equal(Comparison):
    name = "equal"


@register_op
class NotEqual(Comparison):
    name = "not_equal"


@register_op
class Less(Comparison):
    name = "less"


@register_op
class LessEqual(Comparison):
    name = "less_equal"


@register_op
class Greater(Comparison):
    name = "greater"


@register_op
class GreaterEqual(Comparison):
    name = "greater_equal"


@register_op
class LogicalAnd(Logical):
    name = "logical_and"


@register_op
class LogicalOr(Logical):
    name = "logical_or"


@register_op
class LogicalXor(Logical):
    name = "logical_xor"


@register_op
class LogicalNot(Unary):
    name = "logical_not"
    result_dtype = "bool"
    differentiable = False

    def output_spec(self, x):
        if x.dtype != "bool":
            raise DTypeError(f"logical_not: argument 'x' must be a bool tensor "
                             f"(lamina.ops.logical_not casts it); received dtype {x.dtype}")
        return Spec(x.shape, "bool")


@register_op
class IsNan(Predicate):
    name = "isnan"


@register_op
class IsInf(Predicate):
    name = "isinf"


@register_op
class IsFinite(Predicate):
    name = "isfinite"


def equal(x1, x2):
    """``x1 == x2`` elementwise (bool).

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A bool tensor of the broadcast shape of ``x1`` and ``x2``.
    """
    return Equal(*as_tensors("equal", x1, x2))


def not_equal(x1, x2):
    """``x1 != x2`` elementwise (bool).

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A bool tensor of the broadcast shape of ``x1`` and ``x2``.
    """
    return NotEqual(*as_tensors("not_equal", x1, x2))


def less(x1, x2):
    """``x1 < x2`` elementwise (bool).

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A bool tensor of the broadcast shape of ``x1`` and ``x2``.
    """
    return Less(*as_tensors("less", x1, x2))


def less_equal(x1, x2):
    """``x1 <= x2`` elementwise (bool).

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A bool tensor of the broadcast shape of ``x1`` and ``x2``.
    """
    return LessEqual(*as_tensors("less_equal", x1, x2))


def greater(x1, x2):
    """``x1 > x2`` elementwise (bool).

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A bool tensor of the broadcast shape of ``x1`` and ``x2``.
    """
    return Greater(*as_tensors("greater", x1, x2))


def greater_equal(x1, x2):
    """``x1 >= x2`` elementwise (bool).

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A bool tensor of the broadcast shape of ``x1`` and ``x2``.
    """
    return GreaterEqual(*as_tensors("greater_equal", x1, x2))


def _truth(t):
    return t if t.dtype == "bool" else cast(t, "bool")


def _truths(op_name: str, x1, x2):
    a, b = as_tensors(op_name, x1, x2)
    return _truth(a), _truth(b)


def logical_and(x1, x2):
    """Elementwise AND of the truth values of ``x1`` and ``x2`` (bool).

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A bool tensor of the broadcast shape of ``x1`` and ``x2``.
    """
    return LogicalAnd(*_truths("logical_and", x1, x2))


def logical_or(x1, x2):
    """Elementwise OR of the truth values of ``x1`` and ``x2`` (bool).

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A bool tensor of the broadcast shape of ``x1`` and ``x2``.
    """
    return LogicalOr(*_truths("logical_or", x1, x2))


def logical_xor(x1, x2):
    """Elementwise XOR of the truth values of ``x1`` and ``x2`` (bool).

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A bool tensor of the broadcast shape of ``x1`` and ``x2``.
    """
    return LogicalXor(*_truths("logical_xor", x1, x2))


def logical_not(x):
    """Elementwise NOT of the truth value of ``x`` (bool).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A bool tensor of ``x``'s shape.
    """
    return LogicalNot(_truth(as_tensor("logical_not", x)))


def _as_float(op_name: str, x):
    x = as_tensor(op_name, x)
    return x if is_float(x.dtype) else cast(x, floatx())


def isnan(x):
    """True where ``x`` is NaN (never for integer or bool input).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A bool tensor of ``x``'s shape.
    """
    return IsNan(_as_float("isnan", x))


def isinf(x):
    """True where ``x`` is +inf or -inf (never for integer or bool input).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A bool tensor of ``x``'s shape.
    """
    return IsInf(_as_float("isinf", x))


def isfinite(x):
    """True where ``x`` is neither NaN nor infinite (always for integer or bool input).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A bool tensor of ``x``'s shape.
    """
    return IsFinite(_as_float("isfinite", x))
