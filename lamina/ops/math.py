"""Elementwise arithmetic: the binary ops with broadcasting and the unary math functions.

Semantics follow Keras 3's ``keras.ops``: binary ops broadcast as numpy does and promote
their operands (Python scalars are weakly typed, so ``x * 2.0`` keeps ``x``'s dtype and an
integer tensor times ``2.5`` is float32); unary functions whose result is not an integer
(``exp``, ``log``, ``sqrt``, ``sigmoid``, ``floor``, ...) turn integer and bool inputs into
``floatx()`` first. Non-differentiable ops (``sign``, ``floor``, ``floor_divide``, ...) give
no gradient at all.
"""
from __future__ import annotations

from ..dtypes import floatx, is_complex, is_float
from ..errors import DTypeError
from .compare import greater_equal, less_equal
from .core import as_tensor, as_tensors, cast, require_float
from .elementwise import Binary, Unary, unbroadcast
from ..core.op import Spec, register_op

__all__ = ["add", "subtract", "multiply", "divide", "true_divide", "power", "maximum",
           "minimum", "floor_divide", "mod", "negative", "abs", "absolute",
           "sign", "square", "sqrt", "rsqrt", "reciprocal", "exp", "expm1", "log", "log1p",
           "tanh", "sigmoid"]



def _mask(condition, like):
    """A bool tensor as 0/1 in ``like``'s dtype: multiplying by it is a cheap ``where``."""
    return cast(condition, like.dtype)


def _to_float(op_name: str, x):
    """``x`` as a tensor, integers and bools converted to floatx() as Keras does; complex
    tensors are refused (the float ops here are real functions)."""
    x = as_tensor(op_name, x)
    if is_complex(x.dtype):
        raise DTypeError(f"{op_name}: argument 'x' must be a real tensor (complex tensors "
                         f"are not supported by this op); received dtype {x.dtype}")
    return x if is_float(x.dtype) else cast(x, floatx())


# --------------------------------------------------------------------------- binary
@register_op
class Add(Binary):
    name = "add"

    def gradient(self, ctx, g):
        a, b = ctx.inputs
        return unbroadcast(g, a), unbroadcast(g, b)


@register_op
class Subtract(Binary):
    name = "subtract"

    def gradient(self, ctx, g):
        a, b = ctx.inputs
        return unbroadcast(g, a), unbroadcast(negative(g), b) if ctx.needs_grad[1] else None


@register_op
class Multiply(Binary):
    name = "multiply"

    def gradient(self, ctx, g):
        a, b = ctx.inputs
        ga = unbroadcast(multiply(g, b), a) if ctx.needs_grad[0] else None
        gb = unbroadcast(multiply(g, a), b) if ctx.needs_grad[1] else None
        return ga, gb


@register_op
class Divide(Binary):
    name = "divide"

    def gradient(self, ctx, g):
        a, b = ctx.inputs
        ga = unbroadcast(divide(g, b), a) if ctx.needs_grad[0] else None
        gb = None
        if ctx.needs_grad[1]:
            # d(a/b)/db = -a / b**2 = -y / b
            gb = unbroadcast(negative(divide(multiply(g, ctx.outputs[0]), b)), b)
        return ga, gb


@register_op
class Power(Binary):
    name = "power"

    def gradient(self, ctx, g):
        a, b = ctx.inputs
        ga = gb = None
        if ctx.needs_grad[0]:
            # b * a**(b - 1) rather than b * y / a, which is 0/0 at a = 0
            ga = unbroadcast(multiply(g, multiply(b, power(a, subtract(b, 1)))), a)
        if ctx.needs_grad[1]:
            # y * log(a): defined for positive bases, as in every framework
            gb = unbroadcast(multiply(g, multiply(ctx.outputs[0], log(a))), b)
        return ga, gb


@register_op
class Maximum(Binary):
    name = "maximum"

    def gradient(self, ctx, g):
        a, b = ctx.inputs
        # ties go to x1
        to_a = multiply(g, _mask(greater_equal(a, b), g))
        ga = unbroadcast(to_a, a) if ctx.needs_grad[0] else None
        gb = unbroadcast(subtract(g, to_a), b) if ctx.needs_grad[1] else None
        return ga, gb


@register_op
class Minimum(Binary):
    name = "minimum"

    def gradient(self, ctx, g):
        a, b = ctx.inputs
        # ties go to x1
        to_a = multiply(g, _mask(less_equal(a, b), g))
        ga = unbroadcast(to_a, a) if ctx.needs_grad[0] else None
        gb = unbroadcast(subtract(g, to_a), b) if ctx.needs_grad[1] else None
        return ga, gb


@register_op
class FloorDivide(Binary):
    name = "floor_divide"
    differentiable = False


@register_op
class Mod(Binary):
    name = "mod"
    differentiable = False


def add(x1, x2):
    """``x1 + x2`` with numpy broadcasting.

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A tensor of the broadcast shape of ``x1`` and ``x2``.

    Example:

    >>> lamina.ops.add(np.array([1, 2]), np.array([10, 20])).numpy()
    array([11, 22])
    """
    return Add(*as_tensors("add", x1, x2))


def subtract(x1, x2):
    """``x1 - x2`` with numpy broadcasting.

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A tensor of the broadcast shape of ``x1`` and ``x2``.
    """
    return Subtract(*as_tensors("subtract", x1, x2))


def multiply(x1, x2):
    """``x1 * x2`` with numpy broadcasting.

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A tensor of the broadcast shape of ``x1`` and ``x2``.
    """
    return Multiply(*as_tensors("multiply", x1, x2))


def divide(x1, x2):
    """True division; integer inputs give a floatx() result.

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A tensor of the broadcast shape of ``x1`` and ``x2``.
    """
    a, b = as_tensors("divide", x1, x2)
    if not is_float(a.dtype) and not is_complex(a.dtype):
        a, b = cast(a, floatx()), cast(b, floatx())
    return Divide(a, b)


true_divide = divide


def power(x1, x2):
    """``x1 ** x2`` elementwise. ``power(x, 2)`` keeps ``x``'s dtype (weak Python scalars).

    The gradient with respect to the exponent is ``y * log(x1)``, real for positive bases.

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A tensor of the broadcast shape of ``x1`` and ``x2``.
    """
    return Power(*as_tensors("power", x1, x2))


def maximum(x1, x2):
    """The elementwise larger value; the gradient goes to the larger input (ties: ``x1``).

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A tensor of the broadcast shape of ``x1`` and ``x2``.
    """
    return Maximum(*as_tensors("maximum", x1, x2))


def minimum(x1, x2):
    """The elementwise smaller value; the gradient goes to the smaller input (ties: ``x1``).

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A tensor of the broadcast shape of ``x1`` and ``x2``.
    """
    return Minimum(*as_tensors("minimum", x1, x2))


def floor_divide(x1, x2):
    """``x1 // x2`` (rounded towards minus infinity), as numpy; no gradient.

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A tensor of the broadcast shape of ``x1`` and ``x2``.
    """
    return FloorDivide(*as_tensors("floor_divide", x1, x2))


def mod(x1, x2):
    """``x1 % x2`` with the sign of ``x2``, as numpy; no gradient.

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A tensor of the broadcast shape of ``x1`` and ``x2``.
    """
    return Mod(*as_tensors("mod", x1, x2))


# --------------------------------------------------------------------------- unary
class FloatUnary(Unary):
    """A unary op defined on floats only (its public function converts integers first)."""

    def output_spec(self, x):
        require_float(self.name, "x", x)
        return Spec(x.shape, x.dtype)


@register_op
class Negative(Unary):
    name = "negative"

    def gradient(self, ctx, g):
        return (negative(g),)


@register_op
class Abs(Unary):
    name = "abs"

    def gradient(self, ctx, g):
        return (multiply(g, sign(ctx.inputs[0])),)


@register_op
class Sign(Unary):
    name = "sign"
    differentiable = False


@register_op
class Square(Unary):
    name = "square"

    def gradient(self, ctx, g):
        return (multiply(g, multiply(ctx.inputs[0], 2)),)


@register_op
class Sqrt(FloatUnary):
    name = "sqrt"

    def gradient(self, ctx, g):
        return (divide(multiply(g, 0.5), ctx.outputs[0]),)


@register_op
class Rsqrt(FloatUnary):
    name = "rsqrt"

    def gradient(self, ctx, g):
        # d x**-0.5 = -0.5 x**-1.5 = -0.5 y**3
        y = ctx.outputs[0]
        return (multiply(g, multiply(multiply(y, square(y)), -0.5)),)


@register_op
class Reciprocal(FloatUnary):
    name = "reciprocal"

    def gradient(self, ctx, g):
        return (multiply(g, negative(square(ctx.outputs[0]))),)


@register_op
class Exp(FloatUnary):
    name = "exp"

    def gradient(self, ctx, g):
        return (multiply(g, ctx.outputs[0]),)


@register_op
class Expm1(FloatUnary):
    name = "expm1"

    def gradient(self, ctx, g):
        return (multiply(g, add(ctx.outputs[0], 1)),)


@register_op
class Log(FloatUnary):
    name = "log"

    def gradient(self, ctx, g):
        return (divide(g, ctx.inputs[0]),)


@register_op
class Log1p(FloatUnary):
    name = "log1p"

    def gradient(self, ctx, g):
        return (divide(g, add(ctx.inputs[0], 1)),)


@register_op
class Tanh(FloatUnary):
    name = "tanh"

    def gradient(self, ctx, g):
        y = ctx.outputs[0]
        return (multiply(g, subtract(1, square(y))),)


@register_op
class Sigmoid(FloatUnary):
    name = "sigmoid"

    def gradient(self, ctx, g):
        y = ctx.outputs[0]
        return (multiply(g, multiply(y, subtract(1, y))),)


def negative(x):
    """``-x``.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    return Negative(as_tensor("negative", x))


def abs(x):
    """``|x|``; the gradient is ``sign(x)`` (0 at 0). A complex tensor gives its magnitude
    (float32 for complex64).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.

    Example:

    >>> lamina.ops.abs(np.array([-1.5, 2.0])).numpy()
    array([1.5, 2. ])
    """
    x = as_tensor("abs", x)
    if is_complex(x.dtype):
        from .complex_numbers import complex_abs   # complex_numbers builds on math.py
        return complex_abs(x)
    return Abs(x)


absolute = abs


def sign(x):
    """-1, 0 or 1 by the sign of ``x``, in ``x``'s dtype; no gradient.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    return Sign(as_tensor("sign", x))


def square(x):
    """``x * x``, keeping ``x``'s dtype.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    return Square(as_tensor("square", x))


def sqrt(x):
    """Square root; integer input gives floatx().

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.

    Example:

    >>> lamina.ops.sqrt(np.array([4.0, 9.0])).numpy()
    array([2., 3.])
    """
    return Sqrt(_to_float("sqrt", x))


def rsqrt(x):
    """``1 / sqrt(x)``; integer input gives floatx().

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    return Rsqrt(_to_float("rsqrt", x))


def reciprocal(x):
    """``1 / x``; integer input gives floatx().

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    return Reciprocal(_to_float("reciprocal", x))


def exp(x):
    """``e ** x``; integer input gives floatx().

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.

    Example:

    >>> lamina.ops.exp(np.array([0.0, 1.0])).numpy()
    array([1.        , 2.71828183])
    """
    return Exp(_to_float("exp", x))


def expm1(x):
    """``exp(x) - 1``, accurate for small ``x``; integer input gives floatx().

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    return Expm1(_to_float("expm1", x))


def log(x):
    """Natural logarithm; integer input gives floatx().

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.

    Example:

    >>> lamina.ops.log(np.array([1.0, np.e])).numpy()
    array([0., 1.])
    """
    return Log(_to_float("log", x))


def log1p(x):
    """``log(1 + x)``, accurate for small ``x``; integer input gives floatx().

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    return Log1p(_to_float("log1p", x))


def tanh(x):
    """Hyperbolic tangent activation.

    Integer input gives ``floatx()``.

    Args:
        x: The input tensor (or array).

    Returns:
        A tensor of the shape of ``x``.

    Example:

    >>> x = np.array([-2.0, -0.5, 0.5, 2.0])
    >>> np.round(lamina.activations.tanh(x).numpy(), 4)
    array([-0.964 , -0.4621,  0.4621,  0.964 ])
    """
    return Tanh(_to_float("tanh", x))


def sigmoid(x):
    """Sigmoid activation: ``1 / (1 + exp(-x))``.

    Computed without overflow; integer input gives ``floatx()``.

    Args:
        x: The input tensor (or array).

    Returns:
        A tensor of the shape of ``x``.

    Example:

    >>> x = np.array([-2.0, -0.5, 0.5, 2.0])
    >>> np.round(lamina.activations.sigmoid(x).numpy(), 4)
    array([0.1192, 0.3775, 0.6225, 0.8808])
    """
    return Sigmoid(_to_float("sigmoid", x))


