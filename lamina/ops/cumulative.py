"""Cumulative sums and products along an axis (``cumsum``, ``cumprod`` and their NaN-
ignoring forms) and the trapezoid rule, as Keras 3's ``keras.ops``.

``axis=None`` runs over the flattened input. Bools count as int32; ``dtype`` casts the input
first. The gradient of ``cumsum`` is the reversed cumulative sum of the output gradient;
that of ``cumprod`` is ``reverse_cumsum(g * y) / x`` before the first zero along the axis,
exact at that zero (without dividing by it) and 0 after it. (Second derivatives are exact
where ``x`` has no zeros; past a zero they miss the terms through the zero's factor.)
"""
from __future__ import annotations

from ..backend import statistics as kernels
from ..dtypes import floatx, is_float
from .reshaping import reshape
from .compare import equal, greater, isnan, logical_and, logical_not
from .core import as_tensor, cast
from .math import add, divide, multiply, subtract
from .where_clip import where
from ..core.op import Op, Spec, normalize_axis, register_op
from .replicate import flip
from .slicing import getitem
from .reduction import sum as reduce_sum

__all__ = ["cumsum", "cumprod", "nancumsum", "nancumprod", "trapezoid"]


class Cumulative(Op):
    writes_out = False

    def output_spec(self, x, axis=0):
        return Spec(x.shape, x.dtype)

    def forward(self, backend, x, out=None, axis=0):
        return kernels.cumulative(backend.xp, self.name, x, axis)


@register_op
class Cumsum(Cumulative):
    name = "cumsum"

    def gradient(self, ctx, g):
        return (_reverse_cumsum(g, ctx.attrs["axis"]),)


@register_op
class Cumprod(Cumulative):
    name = "cumprod"

    def gradient(self, ctx, g):
        # d y_j / d x_i = prod_{k <= j, k != i} x_k for j >= i. Before the first zero along
        # the axis that is y_j / x_i, so the gradient is reverse_cumsum(g * y) / x; after
        # the first zero it is 0; at the first zero z it is
        # prod_{k < z} x_k * sum_{j >= z} g_j prod_{z < k <= j} x_k (two more cumprods).
        x, y = ctx.inputs[0], ctx.outputs[0]
        axis = ctx.attrs["axis"]
        zero = equal(x, 0)
        seen = Cumsum(cast(zero, x.dtype), axis=axis)          # zeros up to here
        clean = equal(seen, 0)
        first = logical_and(zero, equal(seen, 1))
        later = logical_and(greater(seen, 0), logical_not(first))
        tail = _reverse_cumsum(multiply(g, y), axis)
        regular = divide(tail, where(clean, x, 1.0))
        before = Cumprod(where(clean, x, 1.0), axis=axis)       # prod_{k < z} x_k at z
        after = Cumprod(where(later, x, 1.0), axis=axis)        # prod_{z < k <= j} x_k
        at_zero = multiply(before, _reverse_cumsum(multiply(g, after), axis))
        return (where(clean, regular, where(first, at_zero, 0.0)),)


def _reverse_cumsum(x, axis: int):
    return flip(Cumsum(flip(x, axis), axis=axis), axis)


def _prepare(op_name: str, x, axis, dtype):
    x = as_tensor(op_name, x)
    if dtype is not None:
        x = cast(x, dtype)
    elif x.dtype == "bool":
        x = cast(x, "int32")
    if axis is None:
        return reshape(x, (-1,)), 0
    return x, normalize_axis(op_name, axis, x.ndim)


def cumsum(x, axis=None, dtype=None):
    """The running sum along ``axis`` (the flattened input when None).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) to accumulate along; None means the flattened ``x``.
        dtype: The dtype of the result; None means the default for the inputs.

    Returns:
        A tensor of ``x``'s shape (1-D when ``axis`` is None).

    Example:

    >>> lamina.ops.cumsum(np.array([1, 2, 3])).numpy()
    array([1, 3, 6])
    """
    x, axis = _prepare("cumsum", x, axis, dtype)
    return Cumsum(x, axis=axis)


def cumprod(x, axis=None, dtype=None):
    """The running product along ``axis`` (the flattened input when None).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) to accumulate along; None means the flattened ``x``.
        dtype: The dtype of the result; None means the default for the inputs.

    Returns:
        A tensor of ``x``'s shape (1-D when ``axis`` is None).
    """
    x, axis = _prepare("cumprod", x, axis, dtype)
    return Cumprod(x, axis=axis)


def nancumsum(x, axis=None, dtype=None):
    """``cumsum`` with NaN counted as 0.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) to accumulate along; None means the flattened ``x``.
        dtype: The dtype of the result; None means the default for the inputs.

    Returns:
        A tensor of ``x``'s shape (1-D when ``axis`` is None).
    """
    x, axis = _prepare("nancumsum", x, axis, dtype)
    if is_float(x.dtype):
        x = where(isnan(x), 0.0, x)
    return Cumsum(x, axis=axis)


def nancumprod(x, axis=None, dtype=None):
    """``cumprod`` with NaN counted as 1.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) to accumulate along; None means the flattened ``x``.
        dtype: The dtype of the result; None means the default for the inputs.

    Returns:
        A tensor of ``x``'s shape (1-D when ``axis`` is None).
    """
    x, axis = _prepare("nancumprod", x, axis, dtype)
    if is_float(x.dtype):
        x = where(isnan(x), 1.0, x)
    return Cumprod(x, axis=axis)


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The integral of ``y`` along ``axis`` by the trapezoid rule, with sample points ``x``
    (same length along ``axis``, or broadcasting with ``y``) or spacing ``dx``; integer
    input gives floatx().

    Args:
        y: The values to integrate.
        x: Optional sample points; None uses the spacing ``dx``.
        dx: The spacing of the samples when ``x`` is None. Defaults to 1.0.
        axis: The axis to integrate along. Defaults to -1.

    Returns:
        ``y``'s shape without ``axis``.
    """
    y = as_tensor("trapezoid", y)
    if not is_float(y.dtype):
        y = cast(y, floatx())
    axis = normalize_axis("trapezoid", axis, y.ndim)
    head = tuple(slice(None) for _ in range(axis))
    upper = getitem(y, head + (slice(1, None),))
    lower = getitem(y, head + (slice(None, -1),))
    if x is None:
        width = dx
    else:
        x = as_tensor("trapezoid", x)
        if not is_float(x.dtype):
            x = cast(x, y.dtype)
        if x.ndim == 1:
            width = subtract(getitem(x, (slice(1, None),)), getitem(x, (slice(None, -1),)))
            width = reshape(width, (-1,) + (1,) * (y.ndim - axis - 1))
        else:
            xaxis = normalize_axis("trapezoid", axis - y.ndim + x.ndim, x.ndim)
            xhead = tuple(slice(None) for _ in range(xaxis))
            width = subtract(getitem(x, xhead + (slice(1, None),)),
                             getitem(x, xhead + (slice(None, -1),)))
    return reduce_sum(multiply(multiply(add(upper, lower), width), 0.5), axis=axis)
