"""Reductions that ignore NaN: ``nansum``, ``nanmean``, ``nanmax``, ``nanmin``, ``nanprod``,
``nanvar``, ``nanstd``, ``nanargmax`` and ``nanargmin``, as Keras 3's ``keras.ops``.

Compositions: NaN is replaced by the reduction's neutral value (0 for sums, 1 for products,
-inf/+inf for max/min) and the NaN-free count is reduced alongside. As in Keras, an all-NaN
slice gives NaN (``nanmean``, ``nanmax``, ``nanvar``, ...), 0 (``nansum``), 1 (``nanprod``)
or -1 (``nanarg*``); integer and bool inputs hold no NaN and reduce as the plain ops do.
"""
from __future__ import annotations

from ..dtypes import floatx, is_float
from .reshaping import reshape
from .compare import isnan, logical_not
from .core import as_tensor, cast
from .compare import equal
from .math import divide, multiply, sqrt, subtract
from .where_clip import where
from ..core.op import normalize_axes, normalize_axis
from .reduction import all as reduce_all, argmax, argmin, max as reduce_max, mean
from .reduction import min as reduce_min, prod, sum as reduce_sum

__all__ = ["nansum", "nanmean", "nanmax", "nanmin", "nanprod", "nanvar", "nanstd",
           "nanargmax", "nanargmin"]

_NAN = float("nan")
_INF = float("inf")


def _filled(x, value):
    return where(isnan(x), value, x)


def nansum(x, axis=None, keepdims=False):
    """``sum`` with NaN counted as 0 (0 for an all-NaN slice).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) or axes (tuple of ints) to work over; None means all axes.
        keepdims: If True, the reduced axes stay in the result with size 1, so it broadcasts
            against ``x``. Defaults to False.

    Returns:
        ``x`` reduced over ``axis``: a scalar when ``axis`` is None, otherwise ``x``'s shape
        without those axes (kept with size 1 when ``keepdims``).
    """
    x = as_tensor("nansum", x)
    if not is_float(x.dtype):
        return reduce_sum(x, axis=axis, keepdims=keepdims)
    return reduce_sum(_filled(x, 0.0), axis=axis, keepdims=keepdims)


def nanprod(x, axis=None, keepdims=False):
    """``prod`` with NaN counted as 1 (1 for an all-NaN slice).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) or axes (tuple of ints) to work over; None means all axes.
        keepdims: If True, the reduced axes stay in the result with size 1, so it broadcasts
            against ``x``. Defaults to False.

    Returns:
        ``x`` reduced over ``axis``: a scalar when ``axis`` is None, otherwise ``x``'s shape
        without those axes (kept with size 1 when ``keepdims``).
    """
    x = as_tensor("nanprod", x)
    if not is_float(x.dtype):
        return prod(x, axis=axis, keepdims=keepdims)
    return prod(_filled(x, 1.0), axis=axis, keepdims=keepdims)


def _counted(op_name: str, x, axis, keepdims):
    """(sum of the non-NaN values, their count, the normalized axes), floats throughout."""
    axes = normalize_axes(op_name, axis, x.ndim)
    present = cast(logical_not(isnan(x)), x.dtype)
    total = reduce_sum(_filled(x, 0.0), axis=axes, keepdims=keepdims)
    return total, reduce_sum(present, axis=axes, keepdims=keepdims), axes


def _safe_divide(total, count):
    """``total / count``, NaN where ``count`` is 0 (without a 0/0 in the kernels)."""
    empty = equal(count, 0)
    return where(empty, _NAN, divide(total, where(empty, 1.0, count)))


def _float(op_name: str, x):
    x = as_tensor(op_name, x)
    return x if is_float(x.dtype) else cast(x, floatx())


def nanmean(x, axis=None, keepdims=False):
    """The mean of the non-NaN values over ``axis`` (NaN for an all-NaN slice); integer
    input gives floatx().

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) or axes (tuple of ints) to work over; None means all axes.
        keepdims: If True, the reduced axes stay in the result with size 1, so it broadcasts
            against ``x``. Defaults to False.

    Returns:
        ``x`` reduced over ``axis``: a scalar when ``axis`` is None, otherwise ``x``'s shape
        without those axes (kept with size 1 when ``keepdims``).
    """
    x = as_tensor("nanmean", x)
    if not is_float(x.dtype):
        return mean(x, axis=axis, keepdims=keepdims)
    total, count, _ = _counted("nanmean", x, axis, keepdims)
    return _safe_divide(total, count)


def nanvar(x, axis=None, keepdims=False):
    """The (population) variance of the non-NaN values over ``axis`` (NaN for an all-NaN
    slice); integer input gives floatx().

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) or axes (tuple of ints) to work over; None means all axes.
        keepdims: If True, the reduced axes stay in the result with size 1, so it broadcasts
            against ``x``. Defaults to False.

    Returns:
        ``x`` reduced over ``axis``: a scalar when ``axis`` is None, otherwise ``x``'s shape
        without those axes (kept with size 1 when ``keepdims``).
    """
    x = _float("nanvar", x)
    total, count, axes = _counted("nanvar", x, axis, True)
    # zero the NaN positions before squaring, so no NaN reaches the gradient either
    centered = where(isnan(x), 0.0, subtract(x, _safe_divide(total, count)))
    squares = reduce_sum(multiply(centered, centered), axis=axes, keepdims=keepdims)
    if not keepdims:
        count = reshape(count, squares.shape)
    return _safe_divide(squares, count)


def nanstd(x, axis=None, keepdims=False):
    """``sqrt(nanvar(x))``.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) or axes (tuple of ints) to work over; None means all axes.
        keepdims: If True, the reduced axes stay in the result with size 1, so it broadcasts
            against ``x``. Defaults to False.

    Returns:
        ``x`` reduced over ``axis``: a scalar when ``axis`` is None, otherwise ``x``'s shape
        without those axes (kept with size 1 when ``keepdims``).
    """
    return sqrt(nanvar(x, axis=axis, keepdims=keepdims))


def _nan_extremum(op_name: str, reduce, fill: float, x, axis, keepdims):
    x = as_tensor(op_name, x)
    if not is_float(x.dtype):
        return reduce(x, axis=axis, keepdims=keepdims)
    nan = isnan(x)
    result = reduce(where(nan, fill, x), axis=axis, keepdims=keepdims)
    return where(reduce_all(nan, axis=axis, keepdims=keepdims), _NAN, result)


def nanmax(x, axis=None, keepdims=False):
    """The largest non-NaN value over ``axis`` (NaN for an all-NaN slice).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) or axes (tuple of ints) to work over; None means all axes.
        keepdims: If True, the reduced axes stay in the result with size 1, so it broadcasts
            against ``x``. Defaults to False.

    Returns:
        ``x`` reduced over ``axis``: a scalar when ``axis`` is None, otherwise ``x``'s shape
        without those axes (kept with size 1 when ``keepdims``).
    """
    return _nan_extremum("nanmax", reduce_max, -_INF, x, axis, keepdims)


def nanmin(x, axis=None, keepdims=False):
    """The smallest non-NaN value over ``axis`` (NaN for an all-NaN slice).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) or axes (tuple of ints) to work over; None means all axes.
        keepdims: If True, the reduced axes stay in the result with size 1, so it broadcasts
            against ``x``. Defaults to False.

    Returns:
        ``x`` reduced over ``axis``: a scalar when ``axis`` is None, otherwise ``x``'s shape
        without those axes (kept with size 1 when ``keepdims``).
    """
    return _nan_extremum("nanmin", reduce_min, _INF, x, axis, keepdims)


def _nan_arg(op_name: str, arg, fill: float, x, axis, keepdims):
    x = as_tensor(op_name, x)
    if not is_float(x.dtype):
        return arg(x, axis=axis, keepdims=keepdims)
    if axis is not None:
        axis = normalize_axis(op_name, axis, x.ndim)
    nan = isnan(x)
    index = arg(where(nan, fill, x), axis=axis, keepdims=keepdims)
    lost = reduce_all(nan, axis=axis, keepdims=keepdims)
    return where(lost, -1, index)


def nanargmax(x, axis=None, keepdims=False):
    """int32 index of the largest non-NaN value along ``axis`` (of the flattened ``x``
    when None); -1 for an all-NaN slice. No gradient.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) to search along; None means the flattened ``x``.
        keepdims: If True, the reduced axes stay in the result with size 1, so it broadcasts
            against ``x``. Defaults to False.

    Returns:
        int32 indices: ``x``'s shape without ``axis`` (kept with size 1 when ``keepdims``),
        a scalar when ``axis`` is None.
    """
    return _nan_arg("nanargmax", argmax, -_INF, x, axis, keepdims)


def nanargmin(x, axis=None, keepdims=False):
    """int32 index of the smallest non-NaN value along ``axis``; -1 for an all-NaN slice.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) to search along; None means the flattened ``x``.
        keepdims: If True, the reduced axes stay in the result with size 1, so it broadcasts
            against ``x``. Defaults to False.

    Returns:
        int32 indices: ``x``'s shape without ``axis`` (kept with size 1 when ``keepdims``),
        a scalar when ``axis`` is None.
    """
    return _nan_arg("nanargmin", argmin, _INF, x, axis, keepdims)


