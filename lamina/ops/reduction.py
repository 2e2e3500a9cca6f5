"""Reductions over axes, with ``axis`` (None, int, tuple; negative counts from the end) and
``keepdims``, as Keras 3's ``keras.ops``.

``sum``, ``mean``, ``max``, ``min``, ``prod``, ``any``, ``all``, ``argmax`` and ``argmin``
are primitives over the backend's ``reduce``/``arg_reduce`` kernels; ``var``, ``std`` and
``logsumexp`` are compositions. ``max``/``min`` send the gradient to the elements equal to
the result, split evenly between ties. Integer inputs to ``mean``/``var``/``std``/
``logsumexp`` give ``floatx()`` results; ``sum`` of bools counts them in int32.
"""
from __future__ import annotations

import math

from ..dtypes import floatx, is_float
from ..errors import DTypeError, ShapeError, describe_shape
from .reshaping import broadcast_like, expand_dims, squeeze
from .compare import equal, isfinite
from .core import as_tensor, cast, ones_like, require_float, stop_gradient, unchanged
from .math import add, divide, exp, log, maximum, minimum, multiply, sqrt, subtract
from .where_clip import where
from ..core.op import Op, Spec, normalize_axes, normalize_axis, register_op

__all__ = ["sum", "mean", "max", "min", "prod", "var", "std", "argmax", "argmin",
           "logsumexp", "any", "all"]


def reduced_shape(shape, axes, keepdims: bool) -> tuple:
    if axes is None:
        return (1,) * len(shape) if keepdims else ()
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _reduced_count(shape, axes):
    """How many elements each output element reduces over (None when a size is unknown)."""
    count = 1
    for i, d in enumerate(shape):
        if axes is None or i in axes:
            if d is None:
                return None
            count *= d
    return count


class Reduce(Op):
    """``backend.reduce(kernel, x, axis, keepdims)``; ``axis`` is a normalized tuple or None."""
    kernel = ""
    result_dtype: str | None = None
    writes_out = True

    def output_spec(self, x, axis=None, keepdims=False):
        return Spec(reduced_shape(x.shape, axis, keepdims), self.result_dtype or x.dtype)

    def forward(self, backend, x, out=None, axis=None, keepdims=False):
        return backend.reduce(self.kernel or self.name, x, axis, keepdims, out=out)


def expand_reduced(g, x, axis, keepdims):
    """Reshape a reduction's gradient so it broadcasts against ``x``."""
    if keepdims or not x.shape:
        return g
    return expand_dims(g, tuple(range(len(x.shape))) if axis is None else axis)


@register_op
class Sum(Reduce):
    name = "sum"

    def gradient(self, ctx, g):
        x = ctx.inputs[0]
        g = expand_reduced(g, x, ctx.attrs.get("axis"), ctx.attrs.get("keepdims", False))
        return (broadcast_like(g, x),)


@register_op
class Mean(Reduce):
    name = "mean"

    def output_spec(self, x, axis=None, keepdims=False):
        require_float(self.name, "x", x)
        return super().output_spec(x, axis, keepdims)

    def gradient(self, ctx, g):
        x = ctx.inputs[0]
        axis, keepdims = ctx.attrs.get("axis"), ctx.attrs.get("keepdims", False)
        g = expand_reduced(g, x, axis, keepdims)
        count = _reduced_count(x.shape, axis)
        if count is None:            # a symbolic size: count the elements at run time
            # 1/count in float64, rounded once to g's dtype: the same number as the Python
            # float 1.0 / count of a known size, so both ways round alike
            count = sum(ones_like(x, dtype="float64"), axis=axis, keepdims=True)
            g = multiply(g, cast(divide(1.0, count), g.dtype))
        else:
            g = multiply(g, 1.0 / count) if count else g
        return (broadcast_like(g, x),)


def _extremum_gradient(ctx, g):
    """Route ``g`` to the elements equal to the result, split evenly between ties."""
    x, y = ctx.inputs[0], ctx.outputs[0]
    axis, keepdims = ctx.attrs.get("axis"), ctx.attrs.get("keepdims", False)
    y = expand_reduced(y, x, axis, keepdims)
    g = expand_reduced(g, x, axis, keepdims)
    hits = cast(equal(x, y), x.dtype)
    ties = sum(hits, axis=axis, keepdims=True)
    return (multiply(hits, divide(g, ties)),)


class Extremum(Reduce):
    def output_spec(self, x, axis=None, keepdims=False):
        for i, d in enumerate(x.shape):
            if d == 0 and (axis is None or i in axis):
                raise ShapeError(f"{self.name}: cannot reduce over axis {i} of size 0; "
                                 f"received shape {describe_shape(x.shape)}")
        return super().output_spec(x, axis, keepdims)

    def gradient(self, ctx, g):
        return _extremum_gradient(ctx, g)


@register_op
class Max(Extremum):
    name = "max"


@register_op
class Min(Extremum):
    name = "min"


@register_op
class Prod(Reduce):
    name = "prod"

    def gradient(self, ctx, g):
        # d(prod)/dx_i = prod / x_i: exact away from zeros, which is what the tests cover
        x, y = ctx.inputs[0], ctx.outputs[0]
        axis, keepdims = ctx.attrs.get("axis"), ctx.attrs.get("keepdims", False)
        scale = multiply(expand_reduced(g, x, axis, keepdims),
                         expand_reduced(y, x, axis, keepdims))
        return (divide(broadcast_like(scale, x), x),)


@register_op
class Any(Reduce):
    name = "any"
    result_dtype = "bool"
    differentiable = False


@register_op
class All(Reduce):
    name = "all"
    result_dtype = "bool"
    differentiable = False


def _reduce(op, name: str, x, axis, keepdims):
    axes = normalize_axes(name, axis, x.ndim)
    if axes == ():
        return unchanged(x)
    return op(x, axis=axes, keepdims=bool(keepdims))


def _float_input(name: str, x):
    x = as_tensor(name, x)
    return x if is_float(x.dtype) else cast(x, floatx())


def sum(x, axis=None, keepdims=False):
    """Sum over ``axis`` (all axes when None). Bools are counted in int32.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) or axes (tuple of ints) to work over; None means all axes.
        keepdims: If True, the reduced axes stay in the result with size 1, so it broadcasts
            against ``x``. Defaults to False.

    Returns:
        ``x`` reduced over ``axis``: a scalar when ``axis`` is None, otherwise ``x``'s shape
        without those axes (kept with size 1 when ``keepdims``).

    Example:

    >>> x = np.array([[1, 2], [3, 4]])
    >>> lamina.ops.sum(x, axis=0).numpy()
    array([4, 6])
    """
    x = as_tensor("sum", x)
    if x.dtype == "bool":
        x = cast(x, "int32")
    return _reduce(Sum, "sum", x, axis, keepdims)


def mean(x, axis=None, keepdims=False):
    """The average over ``axis`` (all axes when None); integer inputs give ``floatx()``.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) or axes (tuple of ints) to work over; None means all axes.
        keepdims: If True, the reduced axes stay in the result with size 1, so it broadcasts
            against ``x``. Defaults to False.

    Returns:
        ``x`` reduced over ``axis``: a scalar when ``axis`` is None, otherwise ``x``'s shape
        without those axes (kept with size 1 when ``keepdims``).

    Example:

    >>> lamina.ops.mean(np.array([[1.0, 2.0], [3.0, 4.0]]), axis=1).numpy()
    array([1.5, 3.5])
    """
    return _reduce(Mean, "mean", _float_input("mean", x), axis, keepdims)


def _extremum(op, name: str, x, axis, keepdims, initial):
    x = as_tensor(name, x)
    if x.dtype == "bool":
        raise DTypeError(f"{name}: argument 'x' must be numeric; received dtype bool "
                         f"(use lamina.ops.{'any' if name == 'max' else 'all'})")
    result = _reduce(op, name, x, axis, keepdims)
    if initial is not None:
        result = (maximum if name == "max" else minimum)(result, initial)
    return result


def max(x, axis=None, keepdims=False, initial=None):
    """The largest element over ``axis``; ``initial`` is a lower bound on the result.

    The gradient goes to the elements equal to the maximum, split evenly between ties.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) or axes (tuple of ints) to work over; None means all axes.
        keepdims: If True, the reduced axes stay in the result with size 1, so it broadcasts
            against ``x``. Defaults to False.
        initial: Optional starting value: the result is at least (``max``) or at most
            (``min``) this. Defaults to None.

    Returns:
        ``x`` reduced over ``axis``: a scalar when ``axis`` is None, otherwise ``x``'s shape
        without those axes (kept with size 1 when ``keepdims``).

    Example:

    >>> lamina.ops.max(np.array([[1, 5], [7, 2]]), axis=-1).numpy()
    array([5, 7])
    """
    return _extremum(Max, "max", x, axis, keepdims, initial)


def min(x, axis=None, keepdims=False, initial=None):
    """The smallest element over ``axis``; ``initial`` is an upper bound on the result.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) or axes (tuple of ints) to work over; None means all axes.
        keepdims: If True, the reduced axes stay in the result with size 1, so it broadcasts
            against ``x``. Defaults to False.
        initial: Optional starting value: the result is at least (``max``) or at most
            (``min``) this. Defaults to None.

    Returns:
        ``x`` reduced over ``axis``: a scalar when ``axis`` is None, otherwise ``x``'s shape
        without those axes (kept with size 1 when ``keepdims``).
    """
    return _extremum(Min, "min", x, axis, keepdims, initial)


def prod(x, axis=None, keepdims=False, dtype=None):
    """The product over ``axis``; ``dtype`` casts the input first (bools become int32).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) or axes (tuple of ints) to work over; None means all axes.
        keepdims: If True, the reduced axes stay in the result with size 1, so it broadcasts
            against ``x``. Defaults to False.
        dtype: The dtype ``x`` is cast to before multiplying; None keeps ``x``'s (bools
            become int32).

    Returns:
        ``x`` reduced over ``axis``: a scalar when ``axis`` is None, otherwise ``x``'s shape
        without those axes (kept with size 1 when ``keepdims``).
    """
    x = as_tensor("prod", x)
    if dtype is not None:
        x = cast(x, dtype)
    elif x.dtype == "bool":
        x = cast(x, "int32")
    return _reduce(Prod, "prod", x, axis, keepdims)


def var(x, axis=None, keepdims=False):
    """The (population) variance over ``axis``: ``mean(square(x - mean(x)))``.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) or axes (tuple of ints) to work over; None means all axes.
        keepdims: If True, the reduced axes stay in the result with size 1, so it broadcasts
            against ``x``. Defaults to False.

    Returns:
        ``x`` reduced over ``axis``: a scalar when ``axis`` is None, otherwise ``x``'s shape
        without those axes (kept with size 1 when ``keepdims``).
    """
    x = _float_input("var", x)
    axes = normalize_axes("var", axis, x.ndim)
    if axes == ():
        return subtract(x, x)
    centered = subtract(x, mean(x, axis=axes, keepdims=True))
    return mean(multiply(centered, centered), axis=axes, keepdims=keepdims)


def std(x, axis=None, keepdims=False):
    """The (population) standard deviation over ``axis``: ``sqrt(var(x))``.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) or axes (tuple of ints) to work over; None means all axes.
        keepdims: If True, the reduced axes stay in the result with size 1, so it broadcasts
            against ``x``. Defaults to False.

    Returns:
        ``x`` reduced over ``axis``: a scalar when ``axis`` is None, otherwise ``x``'s shape
        without those axes (kept with size 1 when ``keepdims``).
    """
    return sqrt(var(x, axis=axis, keepdims=keepdims))


class ArgReduce(Op):
    """``backend.arg_reduce(name, x, axis)`` as int32; ``axis`` is an int or None."""
    differentiable = False
    writes_out = True

    def output_spec(self, x, axis=None, keepdims=False):
        axes = None if axis is None else (axis,)
        for i, d in enumerate(x.shape):
            if d == 0 and (axis is None or i == axis):
                raise ShapeError(f"{self.name}: cannot reduce over axis {i} of size 0; "
                                 f"received shape {describe_shape(x.shape)}")
        return Spec(reduced_shape(x.shape, axes, keepdims), "int32")

    def forward(self, backend, x, out=None, axis=None, keepdims=False):
        result = backend.arg_reduce(self.name, x, axis)
        if keepdims:
            axes = None if axis is None else (axis,)
            result = backend.reshape(result, reduced_shape(x.shape, axes, True))
        return backend.cast(result, "int32", out=out)


@register_op
class ArgMax(ArgReduce):
    name = "argmax"


@register_op
class ArgMin(ArgReduce):
    name = "argmin"


def _arg_reduce(op, name: str, x, axis, keepdims):
    x = as_tensor(name, x)
    if axis is not None:
        axis = normalize_axis(name, axis, x.ndim)
        if x.ndim == 0:
            axis = None              # the one element of a scalar: index 0
    return op(x, axis=axis, keepdims=bool(keepdims))


def argmax(x, axis=None, keepdims=False):
    """int32 index of the largest element along ``axis`` (of the flattened ``x`` when
    None); ties give the first. No gradient.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) to search along; None means the flattened ``x``.
        keepdims: If True, the reduced axes stay in the result with size 1, so it broadcasts
            against ``x``. Defaults to False.

    Returns:
        int32 indices: ``x``'s shape without ``axis`` (kept with size 1 when ``keepdims``),
        a scalar when ``axis`` is None.

    Example:

    >>> lamina.ops.argmax(np.array([[1, 9, 3], [8, 2, 0]]), axis=1).numpy()
    array([1, 0], dtype=int32)
    """
    return _arg_reduce(ArgMax, "argmax", x, axis, keepdims)


def argmin(x, axis=None, keepdims=False):
    """int32 index of the smallest element along ``axis`` (flattened when None).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) to search along; None means the flattened ``x``.
        keepdims: If True, the reduced axes stay in the result with size 1, so it broadcasts
            against ``x``. Defaults to False.

    Returns:
        int32 indices: ``x``'s shape without ``axis`` (kept with size 1 when ``keepdims``),
        a scalar when ``axis`` is None.
    """
    return _arg_reduce(ArgMin, "argmin", x, axis, keepdims)


def logsumexp(x, axis=None, keepdims=False):
    """``log(sum(exp(x), axis))`` computed stably: shifted by the (constant) maximum.

    Slices that are all ``-inf`` give ``-inf``; the gradient is ``softmax(x)`` over ``axis``.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) or axes (tuple of ints) to work over; None means all axes.
        keepdims: If True, the reduced axes stay in the result with size 1, so it broadcasts
            against ``x``. Defaults to False.

    Returns:
        ``x`` reduced over ``axis``: a scalar when ``axis`` is None, otherwise ``x``'s shape
        without those axes (kept with size 1 when ``keepdims``).
    """
    x = _float_input("logsumexp", x)
    axes = normalize_axes("logsumexp", axis, x.ndim)
    if axes == ():
        return unchanged(x)
    shift = stop_gradient(max(x, axis=axes, keepdims=True))
    # an all -inf (or +inf) slice: shift by 0, so exp gives 0 (or inf), never nan
    shift = where(isfinite(shift), shift, 0.0)
    total = sum(exp(subtract(x, shift)), axis=axes, keepdims=True)
    result = add(log(total), shift)
    if keepdims:
        return result
    return squeeze(result, axis=tuple(range(x.ndim)) if axes is None else axes)


def _truth_reduce(op, name: str, x, axis, keepdims):
    x = as_tensor(name, x)
    result = _reduce(op, name, x, axis, keepdims)
    return cast(result, "bool") if result is x else result


def any(x, axis=None, keepdims=False):
    """Whether any element over ``axis`` is true (nonzero); a bool tensor.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) or axes (tuple of ints) to work over; None means all axes.
        keepdims: If True, the reduced axes stay in the result with size 1, so it broadcasts
            against ``x``. Defaults to False.

    Returns:
        ``x`` reduced over ``axis``: a scalar when ``axis`` is None, otherwise ``x``'s shape
        without those axes (kept with size 1 when ``keepdims``).
    """
    return _truth_reduce(Any, "any", x, axis, keepdims)


def all(x, axis=None, keepdims=False):
    """Whether every element over ``axis`` is true (nonzero); a bool tensor.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) or axes (tuple of ints) to work over; None means all axes.
        keepdims: If True, the reduced axes stay in the result with size 1, so it broadcasts
            against ``x``. Defaults to False.

    Returns:
        ``x`` reduced over ``axis``: a scalar when ``axis`` is None, otherwise ``x``'s shape
        without those axes (kept with size 1 when ``keepdims``).
    """
    return _truth_reduce(All, "all", x, axis, keepdims)


def num_elements(values):
    """The number of values: a Python int when the shape is known, else a tensor (losses
    and metrics divide by it; not a public op)."""
    if None not in tuple(values.shape):         # (this module's all/sum are ops)
        return math.prod(values.shape)
    return sum(ones_like(values))


def num_rows(x):
    """The batch size of ``x`` (its leading size; 1 for a scalar): a Python int when it is
    known, else a float32 tensor counted when the graph runs (a batch-polymorphic trace).
    Not a public op: losses, metrics, regularizers and data-parallel statistics use it."""
    if not x.shape:
        return 1
    if x.shape[0] is not None:
        return int(x.shape[0])
    column = x[(slice(None),) + (0,) * (len(x.shape) - 1)] if len(x.shape) > 1 else x
    return sum(ones_like(column, dtype="float32"))
