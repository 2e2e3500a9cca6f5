"""Gathers and scatters: take, take_along_axis, scatter, one_hot (Keras 3 semantics).

``take`` and ``scatter_add`` (zeros plus updates summed in at indices) are each other's
gradient, as are ``take_along_axis`` and ``put_along_axis_add``; duplicate indices
accumulate. ``scatter`` is Keras's scatter-add into a new tensor, built on ``scatter_add``
over flattened leading axes. Indices are integer tensors; negative ones count from the end
(as in numpy) and out-of-range ones are an IndexRangeError naming the op, the axis size and
the index. The check runs in the ops' ``forward`` (one min/max read-back per call,
``Backend.index_bounds``), so eager mode, compiled graphs and every backend refuse alike
(numpy's gathers raise a bare error; cupy's wrap silently).

``checked_take`` and ``checked_take_along_axis`` (internal) are the two gathers with a
``range_message`` attribute, for callers whose indices have a meaning (Embedding ids,
sparse crossentropy labels): such indices must
lie in ``[0, size)`` (no counting from the end) and the error is the message, formatted with
``size`` (the axis size), ``bad`` (the first value out of range) and ``low``/``high`` (the
smallest and largest index received).
"""
from __future__ import annotations

from ..core.tensor import TensorBase
from ..dtypes import floatx, is_float, is_int, standardize
from ..errors import DTypeError, IndexRangeError, ShapeError, describe_shape
from .reshaping import broadcast_to, reshape
from .compare import less
from .core import as_tensor, cast, convert_to_tensor, to_backend_tensor
from .math import add, multiply
from ..core.op import Op, Spec, broadcast_shapes, normalize_axis, register_op
from .refused import refused
from .reduction import sum as reduce_sum

__all__ = ["take", "take_along_axis", "scatter", "one_hot"]


def _require_int(op: str, arg: str, indices) -> None:
    if not is_int(indices.dtype):
        raise DTypeError(int_message(op, arg, indices.dtype))


def int_message(op: str, arg: str, dtype: str) -> str:
    return f"{op}: argument '{arg}' must be an integer tensor; received dtype {dtype}"


def _as_indices(op: str, arg: str, indices, like):
    """``indices`` as an integer tensor on ``like``'s backend (host lists are converted)."""
    if not isinstance(indices, TensorBase):
        empty = isinstance(indices, (list, tuple)) and not indices   # would default to float
        indices = to_backend_tensor(indices, dtype="int32" if empty else None,
                                    backend=getattr(like, "backend", None))
    _require_int(op, arg, indices)
    return indices


def check_indices(backend, op: str, indices, size: int, axis: int,
                  range_message: str | None = None) -> None:
    """The kernel-side range check of a gather: ``indices`` (an array) must lie in
    ``[-size, size)``, or in ``[0, size)`` with ``range_message`` (see the module docstring).
    Runs in every mode on every backend, so a bad index never wraps or clips silently."""
    if indices.size == 0:
        return
    smallest, largest = backend.index_bounds(indices)
    low = 0 if range_message is not None else -size
    if low <= smallest and largest < size:
        return
    bad = smallest if smallest < low else largest
    if range_message is not None:
        raise IndexRangeError(range_message.format(size=size, bad=bad, low=smallest,
                                                   high=largest))
    raise IndexRangeError(f"{op}: index {bad} is out of range for axis {axis} of size {size} "
                          f"(valid: [{low}, {size})); argument 'indices' holds values from "
                          f"{smallest} to {largest}")


# --------------------------------------------------------------------------- take
@register_op
class Take(Op):
    name = "take"

    def output_spec(self, x, indices, axis, range_message=None):
        _require_int(self.name, "indices", indices)
        return Spec(x.shape[:axis] + tuple(indices.shape) + x.shape[axis + 1:], x.dtype)

    def forward(self, backend, x, indices, out=None, axis=0, range_message=None):
        check_indices(backend, self.name, indices, x.shape[axis], axis, range_message)
        return backend.take(x, indices, axis)

    def gradient(self, ctx, g):
        x, indices = ctx.inputs
        axis = ctx.attrs["axis"]
        return ScatterAdd(g, indices, size=x.shape[axis], axis=axis), None


@register_op
class ScatterAdd(Op):
    """Zeros with ``updates`` summed in at ``indices`` along ``axis``: take's adjoint.

    ``updates`` has the shape ``take`` would give: ``out.shape[:axis] + indices.shape +
    out.shape[axis + 1:]``; the output has ``size`` along ``axis``.
    """
    name = "scatter_add"

    def output_spec(self, updates, indices, size, axis):
        _require_int(self.name, "indices", indices)
        n = len(indices.shape)
        placed = tuple(updates.shape[axis:axis + n])
        if len(updates.shape) < axis + n or any(
                a is not None and b is not None and a != b
                for a, b in zip(placed, indices.shape)):
            raise ShapeError(f"scatter_add: 'updates' must have the indices' shape "
                             f"{describe_shape(indices.shape)} at axis {axis}; received shape "
                             f"{describe_shape(updates.shape)}")
        return Spec(updates.shape[:axis] + (size,) + updates.shape[axis + n:], updates.dtype)

    def forward(self, backend, updates, indices, out=None, size=0, axis=0):
        shape = updates.shape[:axis] + (size,) + updates.shape[axis + indices.ndim:]
        return backend.scatter_add(shape, indices, updates, axis)

    def gradient(self, ctx, g):
        _, indices = ctx.inputs
        return Take(g, indices, axis=ctx.attrs["axis"]), None


def take(x, indices, axis=None):
    """Elements of ``x`` at ``indices`` along ``axis`` (of the flattened ``x`` when None):
    the result has ``indices``' shape in place of that axis. The gradient sums duplicates.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        indices: int indices (negative ones count from the end).
        axis: The axis to take along; None means the flattened ``x``.

    Returns:
        The gathered tensor.

    Example:

    >>> lamina.ops.take(np.array([10, 20, 30]), np.array([2, 0])).numpy()
    array([30, 10])
    """
    return checked_take(x, indices, axis)


def checked_take(x, indices, axis=None, range_message=None):
    """``take`` whose indices must lie in [0, size), else ``range_message`` is the error
    (see the module docstring); without a message it is ``take``."""
    x = as_tensor("take", x)
    indices = _as_indices("take", "indices", indices, x)
    if axis is None:
        x = reshape(x, (-1,))
        axis = 0
    axis = normalize_axis("take", axis, x.ndim)
    return Take(x, indices, axis=axis, **_message_attr(range_message))


# --------------------------------------------------------------------------- take_along_axis
def _along_axis_spec(op: str, x, indices, axis):
    if len(x.shape) != len(indices.shape):
        raise ShapeError(f"{op}: arguments must have the same rank; received shapes "
                         f"{describe_shape(x.shape)} and {describe_shape(indices.shape)}")
    for i, (a, b) in enumerate(zip(x.shape, indices.shape)):
        if i != axis and a is not None and b is not None and a != b:
            raise ShapeError(f"{op}: shapes must match except along axis {axis}; received "
                             f"{describe_shape(x.shape)} and {describe_shape(indices.shape)}")


@register_op
class TakeAlongAxis(Op):
    name = "take_along_axis"

    def output_spec(self, x, indices, axis, range_message=None):
        _require_int(self.name, "indices", indices)
        _along_axis_spec(self.name, x, indices, axis)
        return Spec(tuple(indices.shape), x.dtype)

    def forward(self, backend, x, indices, out=None, axis=0, range_message=None):
        check_indices(backend, self.name, indices, x.shape[axis], axis, range_message)
        return backend.take_along_axis(x, indices, axis)

    def gradient(self, ctx, g):
        x, indices = ctx.inputs
        axis = ctx.attrs["axis"]
        return PutAlongAxisAdd(g, indices, size=x.shape[axis], axis=axis), None


@register_op
class PutAlongAxisAdd(Op):
    """Zeros with ``updates`` summed in at ``indices`` along ``axis``: the adjoint of
    ``take_along_axis``. ``updates`` has the indices' shape; the output has ``size`` along
    ``axis``."""
    name = "put_along_axis_add"

    def output_spec(self, updates, indices, size, axis):
        _require_int(self.name, "indices", indices)
        if tuple(updates.shape) != tuple(indices.shape):
            raise ShapeError(f"put_along_axis_add: 'updates' must have the indices' shape; "
                             f"received {describe_shape(updates.shape)} and "
                             f"{describe_shape(indices.shape)}")
        shape = list(updates.shape)
        shape[axis] = size
        return Spec(tuple(shape), updates.dtype)

    def forward(self, backend, updates, indices, out=None, size=0, axis=0):
        shape = list(updates.shape)
        shape[axis] = size
        return backend.put_along_axis_add(tuple(shape), indices, updates, axis)

    def gradient(self, ctx, g):
        _, indices = ctx.inputs
        return TakeAlongAxis(g, indices, axis=ctx.attrs["axis"]), None


def take_along_axis(x, indices, axis=None):
    """``x`` gathered at ``indices`` along ``axis``, as numpy: ``indices`` has ``x``'s rank
    and the two broadcast on the other axes (with ``axis=None``, ``x`` is flattened and
    ``indices`` must be 1-D). The gradient sums duplicates.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        indices: int indices of ``x``'s rank.
        axis: The axis to take along; None means the flattened ``x``.

    Returns:
        The gathered tensor, of the broadcast shape.
    """
    return checked_take_along_axis(x, indices, axis)


def checked_take_along_axis(x, indices, axis=None, range_message=None):
    """``take_along_axis`` with a ``range_message`` (see the module docstring)."""
    x = as_tensor("take_along_axis", x)
    indices = _as_indices("take_along_axis", "indices", indices, x)
    if axis is None:
        if indices.ndim != 1:
            raise ShapeError(f"take_along_axis: with axis=None 'indices' must be 1-D; "
                             f"received shape {describe_shape(indices.shape)}")
        x = reshape(x, (-1,))
        axis = 0
    axis = normalize_axis("take_along_axis", axis, x.ndim)
    if indices.ndim != x.ndim:
        raise ShapeError(f"take_along_axis: 'indices' must have the rank of 'x' "
                         f"({x.ndim}); received shapes {describe_shape(x.shape)} and "
                         f"{describe_shape(indices.shape)}")
    others = [tuple(1 if i == axis else d for i, d in enumerate(t.shape)) for t in (x, indices)]
    common = broadcast_shapes("take_along_axis", *others, args=("x", "indices"))
    x = broadcast_to(x, common[:axis] + (x.shape[axis],) + common[axis + 1:])
    indices = broadcast_to(indices, common[:axis] + (indices.shape[axis],) + common[axis + 1:])
    return TakeAlongAxis(x, indices, axis=axis, **_message_attr(range_message))


def _message_attr(range_message) -> dict:
    """The ``range_message`` attribute, left out when None (graphs and exports stay as
    they were for plain gathers)."""
    if range_message is None:
        return {}
    if not isinstance(range_message, str):
        raise TypeError(f"take: argument 'range_message' must be a str or None; received "
                        f"{range_message!r}")
    return {"range_message": range_message}


# --------------------------------------------------------------------------- scatter
@register_op
class CheckIndexRange(Op):
    """``indices`` unchanged, after checking that column ``j`` of its last axis lies in
    ``[-sizes[j], sizes[j])``: a node of its own, so the check runs when a graph runs too
    (``scatter`` flattens its indices, after which a bad one would land somewhere valid)."""
    name = "check_index_range"
    differentiable = False

    def output_spec(self, indices, *like, sizes, op):
        if None in sizes and len(like) != 1:
            raise ShapeError(f"check_index_range: unknown sizes {sizes} are read from one "
                             f"'like' tensor; received {len(like)}")
        return Spec(indices.shape, indices.dtype)

    def forward(self, backend, indices, *like, out=None, sizes=(), op="scatter"):
        for j, size in enumerate(sizes):      # None: axis j of ``like``, known when run
            _check_column(backend, op, indices[..., j],
                          like[0].shape[j] if size is None else size, j)
        return indices

    def gradient(self, ctx, g):
        return (None,) * len(ctx.inputs)


def _check_column(backend, op: str, column, size: int, axis: int) -> None:
    if column.size == 0:
        return
    smallest, largest = backend.index_bounds(column)
    for bad in (smallest, largest):
        if not -size <= bad < size:
            raise IndexRangeError(f"{op}: index {bad} is out of range for axis {axis} of "
                                  f"size {size} (valid: [{-size}, {size}))")


def scatter(indices, values, shape):
    """A tensor of ``shape`` that is zero except for ``values`` added at ``indices``
    (Keras's ``keras.ops.scatter``): ``indices`` has shape (..., k) and addresses the first k
    axes; ``values`` has shape ``indices.shape[:-1] + shape[k:]``. Duplicates accumulate.

    Args:
        indices: int indices, shape (..., k).
        values: The values, shape ``indices.shape[:-1] + shape[k:]``.
        shape: The shape of the result.

    Returns:
        A tensor of ``shape``.
    """
    values = as_tensor("scatter", values)
    shape = tuple(int(d) for d in shape)
    if isinstance(indices, TensorBase) and not is_int(indices.dtype):
        # Keras's symbolic rule does not look at the dtype: refused when run
        return refused(DTypeError, int_message("scatter", "indices", indices.dtype),
                       (indices, values), (shape, values.dtype))
    indices = _as_indices("scatter", "indices", indices, values)
    if indices.ndim == 0 or indices.shape[-1] > len(shape):
        raise ShapeError(f"scatter: 'indices' must have shape (..., k) with k <= "
                         f"{len(shape)} (the rank of 'shape' {shape}); received "
                         f"{describe_shape(indices.shape)}")
    k = indices.shape[-1]
    expected = tuple(indices.shape[:-1]) + shape[k:]
    if tuple(values.shape) != expected:
        raise ShapeError(f"scatter: 'values' must have shape {describe_shape(expected)} for "
                         f"indices of shape {describe_shape(indices.shape)} into {shape}; "
                         f"received {describe_shape(values.shape)}")
    indices = CheckIndexRange(indices, sizes=shape[:k], op="scatter")   # in both modes
    positions = 1
    for d in shape[:k]:
        positions *= d
    dtype = "int64" if positions >= 2 ** 31 else indices.dtype
    backend = getattr(indices, "backend", None)
    strides = [1] * k
    for j in range(k - 2, -1, -1):
        strides[j] = strides[j + 1] * shape[j + 1]
    indices = cast(indices, dtype)
    wrapped = add(indices, multiply(cast(less(indices, 0), dtype),
                                    to_backend_tensor(list(shape[:k]), dtype=dtype,
                                                      backend=backend)))
    flat = reduce_sum(multiply(wrapped, to_backend_tensor(strides, dtype=dtype,
                                                          backend=backend)), axis=-1)
    rows = reshape(values, (-1,) + shape[k:])
    result = ScatterAdd(rows, reshape(flat, (-1,)), size=positions, axis=0)
    return reshape(result, shape)


# --------------------------------------------------------------------------- one_hot
@register_op
class OneHot(Op):
    name = "one_hot"
    differentiable = False

    def output_spec(self, x, num_classes, axis, dtype):
        _require_int(self.name, "x", x)
        shape = list(x.shape)
        shape.insert(axis, num_classes)
        return Spec(tuple(shape), dtype)

    def forward(self, backend, x, out=None, num_classes=0, axis=-1, dtype=None):
        result = backend.one_hot(x, num_classes, dtype)
        if axis != x.ndim:
            order = list(range(x.ndim))
            order.insert(axis, x.ndim)
            result = backend.transpose(result, tuple(order))
        return result


def one_hot(x, num_classes, axis=-1, dtype=None, sparse=False):
    """Integer labels ``x`` as one-hot vectors of length ``num_classes`` along a new axis
    ``axis``; labels outside [0, num_classes) give all-zero vectors. Float labels are cast
    to int32 first, as Keras does. No gradient.

    Args:
        x: Integer labels (float labels are cast to int32).
        num_classes: The length of each one-hot vector.
        axis: Where the new class axis goes. Defaults to -1.
        dtype: The dtype of the result; None means floatx().
        sparse: Must be False: Lamina tensors are dense and a sparse result is refused.

    Returns:
        A tensor of ``x``'s shape with a new axis of size ``num_classes``.

    Example:

    >>> lamina.ops.one_hot(np.array([0, 2]), 3).numpy()
    array([[1., 0., 0.],
           [0., 0., 1.]], dtype=float32)
    """
    if sparse:
        raise ValueError("one_hot: sparse=True is not supported; Lamina tensors are dense")
    x = as_tensor("one_hot", x)
    if is_float(x.dtype):              # Keras casts float labels (2.0 -> class 2)
        x = cast(x, "int32")
    _require_int("one_hot", "x", x)
    num_classes = int(num_classes)
    if num_classes < 0:
        raise ValueError(f"one_hot: argument 'num_classes' must not be negative; received "
                         f"{num_classes}")
    axis = normalize_axis("one_hot", axis, x.ndim + 1)
    dtype = standardize(dtype) if dtype is not None else floatx()
    return OneHot(x, num_classes=num_classes, axis=axis, dtype=dtype)
