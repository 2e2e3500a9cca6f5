"""Order statistics: ``quantile``, ``percentile``, ``median`` and their NaN-ignoring forms,
as Keras 3's ``keras.ops``.

One primitive, ``quantile``, runs numpy's (nan)quantile with ``q`` as a static attribute (a
float, or a tuple of floats that becomes the leading axis of the result). Integer and bool
inputs give ``floatx()``. ``method`` is one of numpy's: "linear", "lower", "higher",
"midpoint", "nearest" or "inverted_cdf".

The gradient is written with ops: every result is ``lo + w * (hi - lo)`` for the two order
statistics ``lo``/``hi`` that bracket it (the "lower" and "higher" quantiles), so it goes to
the elements equal to ``lo`` with weight ``1 - w`` and to those equal to ``hi`` with weight
``w``, split evenly between ties (NaNs get none).
"""
from __future__ import annotations

from ..core.tensor import Tensor, TensorBase
from ..backend import statistics as kernels
from ..dtypes import floatx, is_float
from ..errors import ShapeError
from .reshaping import expand_dims, reshape
from .compare import equal, greater
from .core import as_tensor, cast, stop_gradient
from .math import add, divide, multiply, subtract
from .where_clip import where
from ..core.op import Op, Spec, normalize_axes, register_op
from .reduction import reduced_shape, sum as reduce_sum

__all__ = ["quantile", "percentile", "median", "nanquantile", "nanpercentile", "nanmedian"]

METHODS = ("linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf")


@register_op
class Quantile(Op):
    name = "quantile"

    def output_spec(self, x, q=0.5, axis=None, method="linear", keepdims=False,
                    ignore_nan=False):
        lead = (len(q),) if isinstance(q, tuple) else ()
        return Spec(lead + reduced_shape(x.shape, axis, keepdims), x.dtype)

    def forward(self, backend, x, out=None, q=0.5, axis=None, method="linear",
                keepdims=False, ignore_nan=False):
        return kernels.quantile(backend, x, q, axis, method, keepdims, ignore_nan)

    def gradient(self, ctx, g):
        x, y = ctx.inputs[0], ctx.outputs[0]
        attrs = dict(ctx.attrs, keepdims=True)
        q, axis = attrs["q"], attrs["axis"]
        qs = q if isinstance(q, tuple) else (q,)
        attrs["q"] = qs
        kept = (len(qs),) + reduced_shape(x.shape, axis, True)
        lo = stop_gradient(Quantile(x, **dict(attrs, method="lower")))
        hi = stop_gradient(Quantile(x, **dict(attrs, method="higher")))
        y, g = reshape(y, kept), reshape(g, kept)
        spread = subtract(hi, lo)
        apart = greater(spread, 0)
        w_hi = where(apart, divide(subtract(y, lo), where(apart, spread, 1.0)), 0.0)
        w_lo = subtract(1.0, w_hi)
        xs = expand_dims(x, 0)
        axes = tuple(range(1, len(kept))) if axis is None else tuple(a + 1 for a in axis)

        def share(bound, weight):
            hit = cast(equal(xs, bound), x.dtype)
            count = reduce_sum(hit, axis=axes, keepdims=True)
            return multiply(hit, divide(weight, where(greater(count, 0), count, 1.0)))
        total = multiply(g, add(share(lo, w_lo), share(hi, w_hi)))
        return (reduce_sum(total, axis=0),)


def _q_values(op_name: str, q, scale: float):
    """``q`` (a number, a sequence, a host array or a concrete tensor) as a float or a
    tuple of floats in [0, 1] (after dividing by ``scale``)."""
    if isinstance(q, Tensor):
        q = q.numpy()
    elif isinstance(q, TensorBase):
        raise TypeError(f"{op_name}: argument 'q' must be concrete (a number, a list or a "
                        f"tensor with values); received a symbolic tensor")
    if hasattr(q, "tolist"):
        q = q.tolist()
    try:
        values = float(q) if isinstance(q, (int, float)) else tuple(float(v) for v in q)
    except (TypeError, ValueError):
        raise TypeError(f"{op_name}: argument 'q' must be a number or a 1-D sequence of "
                        f"numbers; received {q!r}") from None
    upper = 100 if scale == 100.0 else 1
    for v in (values if isinstance(values, tuple) else (values,)):
        if not 0 <= v <= upper:
            raise ValueError(f"{op_name}: argument 'q' must be in [0, {upper}]; received {q!r}")
    if isinstance(values, tuple):
        return tuple(v / scale for v in values)
    return values / scale


def _quantile(op_name, x, q, axis, method, keepdims, ignore_nan, scale=1.0):
    x = as_tensor(op_name, x)
    if not is_float(x.dtype):
        x = cast(x, floatx())
    if method not in METHODS:
        raise ValueError(f"{op_name}: argument 'method' must be one of {METHODS}; "
                         f"received {method!r}")
    qs = _q_values(op_name, q, scale)
    axes = normalize_axes(op_name, axis, x.ndim)
    if x.ndim == 0:
        raise ShapeError(f"{op_name}: argument 'x' must have at least one dimension; "
                         f"received a scalar")
    return Quantile(x, q=qs, axis=axes, method=method, keepdims=bool(keepdims),
                    ignore_nan=ignore_nan)


def quantile(x, q, axis=None, method="linear", keepdims=False):
    """The ``q``-th quantile(s) of ``x`` over ``axis`` (all axes when None), ``q`` in
    [0, 1]; a sequence ``q`` adds a leading axis to the result.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        q: The quantile(s), in [0, 1]: a float or a sequence.
        axis: The axis (int) or axes (tuple of ints) to work over; None means all axes.
        method: How to interpolate between data points: "linear" (the default), "lower",
            "higher", "midpoint" or "nearest".
        keepdims: If True, the reduced axes stay in the result with size 1, so it broadcasts
            against ``x``. Defaults to False.

    Returns:
        The quantiles: ``x`` reduced over ``axis`` (size-1 axes with ``keepdims``), with a
        leading axis for a sequence ``q``.
    """
    return _quantile("quantile", x, q, axis, method, keepdims, False)


def percentile(x, q, axis=None, method="linear", keepdims=False):
    """``quantile`` with ``q`` in percent, [0, 100].

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        q: The percentile(s), in [0, 100]: a float or a sequence.
        axis: The axis (int) or axes (tuple of ints) to work over; None means all axes.
        method: How to interpolate between data points: "linear" (the default), "lower",
            "higher", "midpoint" or "nearest".
        keepdims: If True, the reduced axes stay in the result with size 1, so it broadcasts
            against ``x``. Defaults to False.

    Returns:
        The quantiles: ``x`` reduced over ``axis`` (size-1 axes with ``keepdims``), with a
        leading axis for a sequence ``q``.
    """
    return _quantile("percentile", x, q, axis, method, keepdims, False, scale=100.0)


def median(x, axis=None, keepdims=False):
    """The median over ``axis`` (the mean of the two middle values for even counts).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) or axes (tuple of ints) to work over; None means all axes.
        keepdims: If True, the reduced axes stay in the result with size 1, so it broadcasts
            against ``x``. Defaults to False.

    Returns:
        ``x`` reduced over ``axis``: a scalar when ``axis`` is None, otherwise ``x``'s shape
        without those axes (kept with size 1 when ``keepdims``).
    """
    return _quantile("median", x, 0.5, axis, "linear", keepdims, False)


def nanquantile(x, q, axis=None, method="linear", keepdims=False):
    """``quantile`` ignoring NaNs (NaN for an all-NaN slice).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        q: The quantile(s), in [0, 1]: a float or a sequence.
        axis: The axis (int) or axes (tuple of ints) to work over; None means all axes.
        method: How to interpolate between data points: "linear" (the default), "lower",
            "higher", "midpoint" or "nearest".
        keepdims: If True, the reduced axes stay in the result with size 1, so it broadcasts
            against ``x``. Defaults to False.

    Returns:
        The quantiles: ``x`` reduced over ``axis`` (size-1 axes with ``keepdims``), with a
        leading axis for a sequence ``q``.
    """
    return _quantile("nanquantile", x, q, axis, method, keepdims, True)


def nanpercentile(x, q, axis=None, method="linear", keepdims=False):
    """``percentile`` ignoring NaNs (NaN for an all-NaN slice).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        q: The percentile(s), in [0, 100]: a float or a sequence.
        axis: The axis (int) or axes (tuple of ints) to work over; None means all axes.
        method: How to interpolate between data points: "linear" (the default), "lower",
            "higher", "midpoint" or "nearest".
        keepdims: If True, the reduced axes stay in the result with size 1, so it broadcasts
            against ``x``. Defaults to False.

    Returns:
        The quantiles: ``x`` reduced over ``axis`` (size-1 axes with ``keepdims``), with a
        leading axis for a sequence ``q``.
    """
    return _quantile("nanpercentile", x, q, axis, method, keepdims, True, scale=100.0)


def nanmedian(x, axis=None, keepdims=False):
    """``median`` ignoring NaNs (NaN for an all-NaN slice).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) or axes (tuple of ints) to work over; None means all axes.
        keepdims: If True, the reduced axes stay in the result with size 1, so it broadcasts
            against ``x``. Defaults to False.

    Returns:
        ``x`` reduced over ``axis``: a scalar when ``axis`` is None, otherwise ``x``'s shape
        without those axes (kept with size 1 when ``keepdims``).
    """
    return _quantile("nanmedian", x, 0.5, axis, "linear", keepdims, True)
