"""Descriptive statistics as Keras 3's ``keras.ops``: ``amax``/``amin``, ``ptp``,
``average`` (weighted), ``count_nonzero``, ``corrcoef``, ``correlate`` (1-D
cross-correlation) and ``allclose``. All are compositions of primitives.
"""
from __future__ import annotations

from ..dtypes import floatx, is_float
from ..errors import ShapeError, describe_shape
from .reshaping import broadcast_to, expand_dims, reshape, transpose
from .closeness import isclose
from .compare import not_equal
from .core import as_tensor, as_tensors, cast
from .linalg import matmul
from .math import divide, multiply, sqrt, subtract
from .where_clip import clip
from ..core.op import normalize_axes, normalize_axis
from .reduction import all as reduce_all, any as reduce_any, max as reduce_max, mean
from .reduction import min as reduce_min
from .reduction import sum as reduce_sum
from .replicate import flip, pad
from .conv import conv

__all__ = ["amax", "amin", "ptp", "average", "count_nonzero", "corrcoef", "correlate",
           "allclose"]

_MODES = ("full", "same", "valid")


def amax(x, axis=None, keepdims=False):
    """The largest element over ``axis`` (``max``'s other name in Keras); for bools,
    whether any is true.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) or axes (tuple of ints) to work over; None means all axes.
        keepdims: If True, the reduced axes stay in the result with size 1, so it broadcasts
            against ``x``. Defaults to False.

    Returns:
        ``x`` reduced over ``axis``: a scalar when ``axis`` is None, otherwise ``x``'s shape
        without those axes (kept with size 1 when ``keepdims``).
    """
    x = as_tensor("amax", x)
    if x.dtype == "bool":
        return reduce_any(x, axis=axis, keepdims=keepdims)
    return reduce_max(x, axis=axis, keepdims=keepdims)


def amin(x, axis=None, keepdims=False):
    """The smallest element over ``axis`` (``min``'s other name in Keras); for bools,
    whether all are true.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) or axes (tuple of ints) to work over; None means all axes.
        keepdims: If True, the reduced axes stay in the result with size 1, so it broadcasts
            against ``x``. Defaults to False.

    Returns:
        ``x`` reduced over ``axis``: a scalar when ``axis`` is None, otherwise ``x``'s shape
        without those axes (kept with size 1 when ``keepdims``).
    """
    x = as_tensor("amin", x)
    if x.dtype == "bool":
        return reduce_all(x, axis=axis, keepdims=keepdims)
    return reduce_min(x, axis=axis, keepdims=keepdims)


def ptp(x, axis=None, keepdims=False):
    """Peak to peak: ``max(x) - min(x)`` over ``axis``, in ``x``'s dtype.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) or axes (tuple of ints) to work over; None means all axes.
        keepdims: If True, the reduced axes stay in the result with size 1, so it broadcasts
            against ``x``. Defaults to False.

    Returns:
        ``x`` reduced over ``axis``: a scalar when ``axis`` is None, otherwise ``x``'s shape
        without those axes (kept with size 1 when ``keepdims``).
    """
    return subtract(reduce_max(x, axis=axis, keepdims=keepdims),
                    reduce_min(x, axis=axis, keepdims=keepdims))


def average(x, axis=None, weights=None):
    """The weighted mean ``sum(x * w) / sum(w)`` over ``axis`` (all axes when None).

    ``weights`` has ``x``'s shape, or is 1-D with the length of ``axis`` (which must then be
    given). Integer inputs give floatx().

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) or axes (tuple of ints) to work over; None means all axes.
        weights: Optional weights (see above); None means equal weights.

    Returns:
        ``x`` averaged over ``axis`` (a scalar when ``axis`` is None).
    """
    x = as_tensor("average", x)
    if not is_float(x.dtype):
        x = cast(x, floatx())
    if weights is None:
        return mean(x, axis=axis)
    x, w = as_tensors("average", x, weights)
    if tuple(w.shape) != tuple(x.shape):
        if axis is None:
            raise ShapeError(f"average: argument 'axis' must be given when 'weights' and 'x' "
                             f"differ in shape; received 'x' of shape "
                             f"{describe_shape(x.shape)} and 'weights' of shape "
                             f"{describe_shape(w.shape)}")
        axis = normalize_axis("average", axis, x.ndim)
        if w.ndim != 1 or w.shape[0] != x.shape[axis]:
            raise ShapeError(f"average: argument 'weights' must have the shape of 'x' or be "
                             f"1-D with the length of axis {axis} ({x.shape[axis]}); received "
                             f"shape {describe_shape(w.shape)}")
        w = reshape(w, (-1,) + (1,) * (x.ndim - axis - 1))
    axes = normalize_axes("average", axis, x.ndim)
    total = reduce_sum(multiply(x, w), axis=axes)
    # the weights broadcast to x's shape, so that their sum counts every element
    return divide(total, reduce_sum(broadcast_to(w, x.shape), axis=axes))


def count_nonzero(x, axis=None):
    """The number (int32) of nonzero elements over ``axis`` (all axes when None).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) or axes (tuple of ints) to work over; None means all axes.

    Returns:
        An int32 tensor: ``x``'s shape without ``axis`` (a scalar when ``axis`` is None).
    """
    x = as_tensor("count_nonzero", x)
    return reduce_sum(cast(not_equal(x, 0), "int32"), axis=axis)


def corrcoef(x):
    """Pearson correlation coefficients between the rows of ``x`` (variables as rows,
    observations as columns), as numpy's ``corrcoef``; a 1-D ``x`` gives 1. Integer
    inputs give floatx().

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        The correlation matrix (rows, rows).
    """
    x = as_tensor("corrcoef", x)
    if not is_float(x.dtype):
        x = cast(x, floatx())
    if x.ndim not in (1, 2):
        raise ShapeError(f"corrcoef: argument 'x' must be 1-D or 2-D; received shape "
                         f"{describe_shape(x.shape)}")
    rows = x if x.ndim == 2 else expand_dims(x, 0)
    centered = subtract(rows, mean(rows, axis=1, keepdims=True))
    products = matmul(centered, transpose(centered))
    scale = sqrt(reduce_sum(multiply(centered, centered), axis=1))
    r = divide(divide(products, expand_dims(scale, 1)), expand_dims(scale, 0))
    r = clip(r, -1.0, 1.0)
    return reshape(r, ()) if x.ndim == 1 else r


def correlate(x1, x2, mode="valid"):
    """The cross-correlation ``c[k] = sum_n x1[n + k] * x2[n]`` of two 1-D tensors, as
    numpy's ``correlate``: ``mode`` "valid" (full overlap), "same" (the longer input's
    length) or "full". Integer inputs give floatx().

    Args:
        x1: A 1-D tensor.
        x2: A 1-D tensor.
        mode: "valid" (the default), "same" or "full".

    Returns:
        A 1-D tensor.
    """
    if mode not in _MODES:
        raise ValueError(f"correlate: argument 'mode' must be one of {_MODES}; received "
                         f"{mode!r}")
    a, v = as_tensors("correlate", x1, x2)
    if not is_float(a.dtype):
        a, v = cast(a, floatx()), cast(v, floatx())
    for arg, t in (("x1", a), ("x2", v)):
        if t.ndim != 1:
            raise ShapeError(f"correlate: argument '{arg}' must be 1-D; received shape "
                             f"{describe_shape(t.shape)}")
    n, m = a.shape[0], v.shape[0]
    if n < m:               # numpy swaps the operands and reverses the result
        return flip(correlate(v, a, mode), 0)
    if mode == "full":
        a = pad(a, ((m - 1, m - 1),))
    elif mode == "same":
        a = pad(a, ((m // 2, m - 1 - m // 2),))
    y = conv(reshape(a, (1, -1, 1)), reshape(v, (m, 1, 1)))
    return reshape(y, (-1,))


def allclose(x1, x2, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True (a bool scalar tensor) when every pair is ``isclose``.

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.
        rtol: The relative tolerance. Defaults to 1e-5.
        atol: The absolute tolerance. Defaults to 1e-8.
        equal_nan: Whether NaNs compare equal. Defaults to False.

    Returns:
        A bool scalar tensor.
    """
    return reduce_all(isclose(x1, x2, rtol=rtol, atol=atol, equal_nan=equal_nan))
