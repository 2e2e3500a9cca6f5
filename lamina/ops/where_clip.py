"""``where`` and ``clip``: choosing between values elementwise, and bounding them.

Both broadcast their operands as numpy does and promote them to one dtype, as Keras 3's
``keras.ops.where`` and ``keras.ops.clip``; their gradients go to the operand each element
was taken from.
"""
from __future__ import annotations

from ..errors import DTypeError
from .compare import greater, greater_equal, less, less_equal, logical_or
from .core import as_tensor, as_tensors, cast, to_backend_tensor
from .elementwise import unbroadcast
from .math import _mask, maximum, minimum, multiply, subtract
from ..core.op import Op, Spec, broadcast_shapes, register_op

__all__ = ["where", "clip"]


@register_op
class Where(Op):
    name = "where"
    writes_out = True

    def output_spec(self, condition, x1, x2):
        if condition.dtype != "bool":
            raise DTypeError(f"where: argument 'condition' must be a bool tensor "
                             f"(lamina.ops.where casts it); received dtype {condition.dtype}")
        if x1.dtype != x2.dtype:
            raise DTypeError(f"where: arguments 'x1' and 'x2' must have one dtype "
                             f"(lamina.ops.where promotes them); received {x1.dtype} "
                             f"and {x2.dtype}")
        shape = broadcast_shapes(self.name, condition.shape, x1.shape, x2.shape,
                                 args=("condition", "x1", "x2"))
        return Spec(shape, x1.dtype)

    def forward(self, backend, condition, x1, x2, out=None):
        return backend.where(condition, x1, x2, out=out)

    def gradient(self, ctx, g):
        condition, a, b = ctx.inputs
        to_a = multiply(g, _mask(condition, g))
        ga = unbroadcast(to_a, a) if ctx.needs_grad[1] else None
        gb = unbroadcast(subtract(g, to_a), b) if ctx.needs_grad[2] else None
        return None, ga, gb


def where(condition, x1=None, x2=None):
    """``x1`` where ``condition`` is true, else ``x2``, broadcasting all three.

    A non-bool ``condition`` is cast to bool (nonzero is true), as numpy and Keras do.
    ``x1`` and ``x2`` are promoted to one dtype. The one-argument form (the indices of the
    nonzero elements) has a data-dependent shape and is not supported: both values are
    required.

    Args:
        condition: A tensor; nonzero means true.
        x1: The values where ``condition`` is true.
        x2: The values elsewhere.

    Returns:
        A tensor of the broadcast shape.

    Raises:
        TypeError: If ``x1`` or ``x2`` is missing.

    Example:

    >>> lamina.ops.where(np.array([True, False]), 1, -1).numpy()
    array([ 1, -1], dtype=int32)
    """
    if x1 is None or x2 is None:
        raise TypeError("where: arguments 'x1' and 'x2' are both required; the one-argument "
                        "form (indices of nonzero elements) is not supported")
    condition = as_tensor("where", condition)
    if condition.dtype != "bool":
        condition = cast(condition, "bool")
    if not hasattr(x1, "dtype") and not hasattr(x2, "dtype") and hasattr(condition, "data"):
        # two Python values: make them on the condition's backend, not the default one
        x1 = to_backend_tensor(x1, backend=condition.backend)
    a, b = as_tensors("where", x1, x2)
    return Where(condition, a, b)


@register_op
class Clip(Op):
    name = "clip"
    writes_out = inplace = True

    def output_spec(self, x, x_min, x_max):
        if not x.dtype == x_min.dtype == x_max.dtype:
            raise DTypeError(f"clip: arguments 'x', 'x_min' and 'x_max' must have one dtype "
                             f"(lamina.ops.clip promotes them); received {x.dtype}, "
                             f"{x_min.dtype} and {x_max.dtype}")
        shape = broadcast_shapes(self.name, x.shape, x_min.shape, x_max.shape,
                                 args=("x", "x_min", "x_max"))
        return Spec(shape, x.dtype)

    def forward(self, backend, x, x_min, x_max, out=None):
        return backend.clip(x, x_min, x_max, out=out)

    def gradient(self, ctx, g):
        # clip(x, lo, hi) = minimum(maximum(x, lo), hi): with lo > hi every output is hi.
        x, lo, hi = ctx.inputs
        inside = multiply(_mask(greater_equal(x, lo), g), _mask(less_equal(x, hi), g))
        gx = unbroadcast(multiply(g, inside), x) if ctx.needs_grad[0] else None
        glo = ghi = None
        if ctx.needs_grad[1]:
            below = multiply(_mask(less(x, lo), g), _mask(less_equal(lo, hi), g))
            glo = unbroadcast(multiply(g, below), lo)
        if ctx.needs_grad[2]:
            above = _mask(logical_or(greater(x, hi), greater(lo, hi)), g)
            ghi = unbroadcast(multiply(g, above), hi)
        return gx, glo, ghi


def clip(x, x_min, x_max):
    """``x`` limited to ``[x_min, x_max]`` (numpy's ``clip``: with ``x_min > x_max`` every
    element becomes ``x_max``). The bounds may be scalars or tensors that broadcast; a None
    bound leaves that side open. The gradient passes where ``x`` is inside the bounds.

    As in Keras, the result has ``x``'s dtype (bool becomes int32): bounds of a wider dtype
    are applied in the promoted dtype and the result is cast back.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        x_min: The lower bound (a number, a tensor, or None).
        x_max: The upper bound (a number, a tensor, or None).

    Returns:
        A tensor of ``x``'s shape and dtype.

    Example:

    >>> lamina.ops.clip(np.array([-2, 0, 5]), -1, 3).numpy()
    array([-1,  0,  3])
    """
    if x_min is None and x_max is None:
        raise TypeError("clip: arguments 'x_min' and 'x_max' cannot both be None")
    x = as_tensor("clip", x)
    if x.dtype == "bool":
        x = cast(x, "int32")
    dtype = x.dtype
    if x_min is None:
        y = minimum(x, x_max)
    elif x_max is None:
        y = maximum(x, x_min)
    else:
        y = Clip(*as_tensors("clip", x, x_min, x_max))
    return y if y.dtype == dtype else cast(y, dtype)
