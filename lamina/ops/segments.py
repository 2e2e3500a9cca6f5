"""Segment reductions and scattered updates: segment_sum, segment_max, segment_min,
segment_prod, scatter_update (Keras 3's ``keras.ops`` names, JAX's semantics).

Both are built on one membership mask: ``mask[s, i]`` is true when row ``i`` belongs to
segment (or flat position) ``s``. A reduction over the rows of ``where(mask, data,
identity)`` gives each segment's value: empty segments hold the identity (0 for sums, 1
for products, -inf/+inf or the integer limits for max/min), and ids outside
``[0, num_segments)`` belong to no segment (dropped, as JAX drops them). Everything is a
composition of ops, so gradients come free (``max``/``min`` split them between ties). The
mask costs ``num_segments * rows`` booleans.
"""
from __future__ import annotations

import math

from ..core.tensor import Tensor
from ..dtypes import is_float, is_int
from ..errors import DTypeError, ShapeError, describe_shape
from .compare import equal, less
from .core import arange, as_tensor, cast, full_like, ones_like, to_backend_tensor
from .cumulative import cumsum
from .indexing import CheckIndexRange, scatter, take
from .math import add, maximum, minimum, multiply, subtract
from .where_clip import where
from .reduction import any as reduce_any, argmax, max as reduce_max, min as reduce_min
from .reduction import prod as reduce_prod, sum as reduce_sum
from .reshaping import expand_dims, reshape, stack
from .refused import refused
from .size_checks import check_size

__all__ = ["segment_sum", "segment_max", "segment_min", "segment_prod", "scatter_update"]


def _identity(kind: str, dtype: str):
    if kind == "sum":
        return 0
    if kind == "prod":
        return 1
    if is_float(dtype):
        return float("-inf") if kind == "max" else float("inf")
    if dtype == "bool":
        return kind != "max"
    bits = int(dtype.lstrip("uint"))
    low, high = (0, 2 ** bits - 1) if dtype.startswith("u") else (-2 ** (bits - 1),
                                                                  2 ** (bits - 1) - 1)
    return low if kind == "max" else high


_REDUCE = {"sum": reduce_sum, "max": reduce_max, "min": reduce_min, "prod": reduce_prod}


def _member_mask(ids, count: int, rank: int):
    """(count, n, 1, ..., 1) booleans: ``ids[i] == s`` (``rank`` trailing unit axes)."""
    segments = reshape(arange(count), (count, 1))
    mask = equal(expand_dims(cast(ids, "int32"), 0), segments)
    return reshape(mask, (count, -1) + (1,) * rank) if rank else mask


def _reduce_rows(kind: str, data, mask):
    """Per segment, the ``kind`` reduction of the rows of ``data`` that ``mask`` marks."""
    filled = where(mask, expand_dims(data, 0), full_like(data, _identity(kind, data.dtype)))
    return _REDUCE[kind](filled, axis=1)


def _segment(kind: str, data, segment_ids, num_segments):
    op = f"segment_{kind}"
    data = as_tensor(op, data)
    ids = as_tensor(op, segment_ids)
    shapes = f"received shapes {describe_shape(ids.shape)} and {describe_shape(data.shape)}"
    if ids.ndim != 1:
        raise ShapeError(f"{op}: argument 'segment_ids' must be 1-D with one id per row of "
                         f"'data' (Argument `segment_ids` should be an 1-D vector, or flatten "
                         f"it and the leading axes of 'data'); {shapes}")
    if data.ndim < 1 or (None not in (ids.shape[0], data.shape[0])
                         and ids.shape[0] != data.shape[0]):
        raise ShapeError(f"{op}: argument 'segment_ids' must be 1-D with one id per row of "
                         f"'data' (Argument `segment_ids` and `data` should have same leading "
                         f"dimension.); {shapes}")
    # Keras's symbolic rule: (num_segments or None,) + data.shape[1:], whatever the ids'
    # dtype; here a result that depends on the ids' values or dtype is refused when run
    spec = ((num_segments if isinstance(num_segments, int) else None,) +
            tuple(data.shape[1:]), data.dtype)
    if not is_int(ids.dtype):
        return refused(DTypeError, f"{op}: argument 'segment_ids' must be an integer tensor; "
                       f"received dtype {ids.dtype}", (data, ids), spec)
    if num_segments is None:
        if not isinstance(ids, Tensor):
            return refused(ShapeError, f"{op}: argument 'num_segments' is required when "
                           "tracing a graph (the number of segments would depend on the "
                           "values)", (data, ids), spec)
        num_segments = int(reduce_max(ids).numpy()) + 1 if ids.shape[0] else 0
    if not isinstance(num_segments, int) or isinstance(num_segments, bool) or num_segments < 0:
        raise ValueError(f"{op}: argument 'num_segments' must be a non-negative int; "
                         f"received {num_segments!r}")
    if data.dtype == "bool" and kind in ("sum", "prod"):
        data = cast(data, "int32")
    return _reduce_rows(kind, data, _member_mask(ids, num_segments, data.ndim - 1))


def segment_sum(data, segment_ids, num_segments=None, sorted=False):
    """Per segment id ``s`` in ``[0, num_segments)``, the sum of the rows of ``data`` whose
    id is ``s`` (0 for none). ``num_segments`` defaults to ``max(segment_ids) + 1`` (eager
    only); ``sorted`` says the ids are sorted, which the result does not depend on.

    Args:
        data: The values; rows (the leading axis) are grouped by ``segment_ids``.
        segment_ids: int ids, one per row of ``data``, in ``[0, num_segments)``.
        num_segments: The number of segments; None means ``max(segment_ids) + 1`` (eager
            only).
        sorted: Whether ``segment_ids`` are sorted; the result does not depend on it.

    Returns:
        A tensor of shape ``(num_segments,) + data.shape[1:]``.
    """
    return _segment("sum", data, segment_ids, num_segments)


def segment_max(data, segment_ids, num_segments=None, sorted=False):
    """Per segment, the largest row element (-inf, or the dtype's minimum, for none).

    Args:
        data: The values; rows (the leading axis) are grouped by ``segment_ids``.
        segment_ids: int ids, one per row of ``data``, in ``[0, num_segments)``.
        num_segments: The number of segments; None means ``max(segment_ids) + 1`` (eager
            only).
        sorted: Whether ``segment_ids`` are sorted; the result does not depend on it.

    Returns:
        A tensor of shape ``(num_segments,) + data.shape[1:]``.
    """
    return _segment("max", data, segment_ids, num_segments)


def segment_min(data, segment_ids, num_segments=None, sorted=False):
    """Per segment, the smallest row element (+inf, or the dtype's maximum, for none).

    Args:
        data: The values; rows (the leading axis) are grouped by ``segment_ids``.
        segment_ids: int ids, one per row of ``data``, in ``[0, num_segments)``.
        num_segments: The number of segments; None means ``max(segment_ids) + 1`` (eager
            only).
        sorted: Whether ``segment_ids`` are sorted; the result does not depend on it.

    Returns:
        A tensor of shape ``(num_segments,) + data.shape[1:]``.
    """
    return _segment("min", data, segment_ids, num_segments)


def segment_prod(data, segment_ids, num_segments=None, sorted=False):
    """Per segment, the product of its rows (1 for none).

    Args:
        data: The values; rows (the leading axis) are grouped by ``segment_ids``.
        segment_ids: int ids, one per row of ``data``, in ``[0, num_segments)``.
        num_segments: The number of segments; None means ``max(segment_ids) + 1`` (eager
            only).
        sorted: Whether ``segment_ids`` are sorted; the result does not depend on it.

    Returns:
        A tensor of shape ``(num_segments,) + data.shape[1:]``.
    """
    return _segment("prod", data, segment_ids, num_segments)


_UPDATES = (None, "add", "max", "min", "mul")


def scatter_update(inputs, indices, updates, reduction=None):
    """``inputs`` with ``updates`` written at ``indices`` (shape (n, k): the first k axes):
    with ``reduction=None`` the last update of a position wins; "add", "max", "min" and
    "mul" combine the updates and the value there. Negative indices count from the end.

    Args:
        inputs: The tensor to update.
        indices: int indices, shape (n, k).
        updates: The new values, shape ``(n,) + inputs.shape[k:]``.
        reduction: None (replace), "add", "max", "min" or "mul".

    Returns:
        A tensor of ``inputs``' shape and dtype.
    """
    if reduction not in _UPDATES:
        raise ValueError(f"scatter_update: argument 'reduction' must be one of {_UPDATES}; "
                         f"received {reduction!r}")
    x = as_tensor("scatter_update", inputs)
    if not hasattr(indices, "shape"):
        indices = to_backend_tensor(indices, dtype="int32", backend=getattr(x, "backend", None))
    indices = as_tensor("scatter_update", indices)
    updates = cast(as_tensor("scatter_update", updates), x.dtype)
    if indices.ndim != 2 or indices.shape[1] is None or indices.shape[1] > x.ndim:
        raise ShapeError(f"scatter_update: argument 'indices' must have shape (n, k) with k <= "
                         f"{x.ndim}; received {describe_shape(indices.shape)}")
    k = indices.shape[1]
    shape = tuple(x.shape)
    if shape.count(None) > 1 or indices.shape[0] is None:
        raise ShapeError(f"scatter_update: argument 'inputs' may have one unknown size and "
                         f"'indices' a known number of rows; received "
                         f"{describe_shape(shape)} and {describe_shape(indices.shape)}")
    x = _check_updates(x, indices, updates, k)
    positions = None if None in shape[:k] else math.prod(shape[:k])
    if reduction == "add" and None not in shape:
        return add(x, scatter(indices, updates, shape))
    flat = _flat_positions(indices, shape[:k], x)
    rest = len(shape) - k
    if positions is None:     # a size read when run: the positions 0, 1, ... of x's rows
        corner = x[(slice(None),) * k + (slice(0, 1),) * rest]
        segments = subtract(cumsum(reshape(ones_like(corner, dtype="int32"), (-1,))), 1)
        mask = equal(expand_dims(cast(flat, "int32"), 0), reshape(segments, (-1, 1)))
        mask = reshape(mask, (-1, flat.shape[0]) + (1,) * rest) if rest else mask
    else:
        mask = _member_mask(flat, positions, rest)
    rows = reshape(x, (-1 if positions is None else positions,) + shape[k:])
    touched = reduce_any(mask, axis=1)
    if reduction is None:
        order = reshape(add(arange(flat.shape[0]), 1), (1, -1) + (1,) * rest)
        last = argmax(where(mask, order, full_like(order, 0)), axis=1)    # the last writer
        winner = take(updates, reshape(last, (-1,)), axis=0)
        result = where(touched, winner, rows)
    else:
        kind = {"add": "sum", "max": "max", "min": "min", "mul": "prod"}[reduction]
        combined = _reduce_rows(kind, updates, mask)
        merge = {"add": add, "max": maximum, "min": minimum, "mul": multiply}[reduction]
        result = where(touched, merge(rows, combined), rows)
    return reshape(result, shape)


def _check_updates(x, indices, updates, k: int):
    """``updates`` must have shape ``(n,) + x.shape[k:]``: refused now where both sizes
    are known, and when run where only x's is (a size of x read then); ``x`` is returned,
    checked. Without it a graph with an unknown size broadcast a wrong ``updates``."""
    expected = (indices.shape[0],) + tuple(x.shape)[k:]
    message = (f"scatter_update: argument 'updates' must have shape "
               f"{describe_shape(expected)} for indices of shape "
               f"{describe_shape(indices.shape)} into {describe_shape(x.shape)}; received "
               f"{describe_shape(updates.shape)}")
    if updates.ndim != len(expected) or any(
            a is not None and b is not None and a != b
            for a, b in zip(expected, updates.shape)):
        raise ShapeError(message)
    for axis, (want, got) in enumerate(zip(expected[1:], tuple(updates.shape)[1:])):
        if want is None and got is not None:
            x = check_size(x, k + axis, got, message.replace("{", "{{").replace("}", "}}"),
                           exact=True)
    return x


def _flat_positions(indices, dims, x):
    """Row-major positions of the index rows into ``dims`` (the first axes of ``x``; a
    None size is read from ``x`` when run): negatives count from the end, out-of-range rows
    are an IndexRangeError in eager and graph mode alike."""
    # x always: the check then runs after x's own checks (the shape of 'updates'), in a
    # graph as in eager mode, so both modes raise the same error first
    indices = cast(CheckIndexRange(indices, x, sizes=tuple(dims), op="scatter_update"),
                   "int32")
    backend = getattr(indices, "backend", None)
    if None not in dims:
        sizes = to_backend_tensor(list(dims), dtype="int32", backend=backend)
        strides = [1] * len(dims)
        for j in range(len(dims) - 2, -1, -1):
            strides[j] = strides[j + 1] * dims[j + 1]
        strides = to_backend_tensor(strides, dtype="int32", backend=backend)
    else:
        each = [_size(x, j) for j in range(len(dims))]
        steps = [ones_like(each[-1])]
        for j in range(len(dims) - 1, 0, -1):
            steps.insert(0, multiply(steps[0], each[j]))
        sizes, strides = stack(each), stack(steps)
    wrapped = add(indices, multiply(cast(less(indices, 0), "int32"), sizes))
    return reduce_sum(multiply(wrapped, strides), axis=-1)


def _size(x, axis: int):
    """The size of ``x`` on ``axis`` as an int32 scalar, read when the graph runs."""
    line = x[tuple(slice(None) if a == axis else 0 for a in range(x.ndim))]
    return reduce_sum(ones_like(line, dtype="int32"))
