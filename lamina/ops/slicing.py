"""Basic indexing: ``x[key]`` (getitem), ``slice`` and ``slice_update``.

Primitives: getitem and setitem (its gradient, and ``slice_update``); ``slice`` is a
composition. ``getitem``'s ``key`` attribute is hashable: slices are stored as
(start, stop, step) tuples, since ``slice`` objects are not hashable before Python 3.12.
"""
from __future__ import annotations

import builtins
import numbers
import operator

from ..core.tensor import TensorBase
from ..dtypes import is_int
from ..errors import DTypeError, ShapeError, describe_shape
from .reshaping import _index_tensor, moveaxis
from .core import as_tensor, cast, unchanged, zeros_like
from .elementwise import unbroadcast
from .indexing import take
from .dynamic_slicing import DynamicSlice, DynamicSliceUpdate
from ..core.op import Op, Spec, broadcast_shapes, register_op
from .refused import refused

__all__ = ["getitem", "slice", "slice_update"]


# --------------------------------------------------------------------------- indexing
def _decode(key) -> tuple:
    return tuple(builtins.slice(*k) if isinstance(k, tuple) else k for k in key)


def _indexed_shape(op: str, shape, key) -> tuple:
    """The shape of ``x[key]`` for an encoded basic key (ints, None, slice tuples)."""
    out, axis = [], 0
    for k in key:
        if k is None:
            out.append(1)
            continue
        if axis >= len(shape):
            raise IndexError(f"{op}: too many indices for a tensor of rank {len(shape)}")
        d = shape[axis]
        if isinstance(k, tuple):
            out.append(None if d is None else len(range(*builtins.slice(*k).indices(d))))
        elif d is not None and not -d <= k < d:
            raise IndexError(f"{op}: index {k} is out of range for axis {axis} of size {d}")
        axis += 1
    return tuple(out) + tuple(shape[axis:])


@register_op
class GetItem(Op):
    """Basic indexing ``x[key]``: ints, (start, stop, step) slice tuples and None."""
    name = "getitem"

    def output_spec(self, x, key):
        return Spec(_indexed_shape(self.name, x.shape, key), x.dtype)

    def forward(self, backend, x, out=None, key=()):
        return backend.getitem(x, _decode(key))

    def gradient(self, ctx, g):
        x = ctx.inputs[0]
        return (SetItem(zeros_like(x), g, key=ctx.attrs["key"]),)


@register_op
class SetItem(Op):
    """A copy of ``x`` with ``x[key] = value`` (``value`` broadcasts); basic keys only."""
    name = "setitem"

    def output_spec(self, x, value, key):
        if x.dtype != value.dtype:
            raise DTypeError(f"setitem: arguments 'x' and 'value' must have one dtype; "
                             f"received {x.dtype} and {value.dtype}")
        target = _indexed_shape(self.name, x.shape, key)
        if broadcast_shapes(self.name, target, value.shape,
                            args=("x[key]", "value")) != tuple(target):
            raise ShapeError(f"setitem: cannot broadcast a value of shape "
                             f"{describe_shape(value.shape)} to the indexed region's shape "
                             f"{describe_shape(target)}")
        return Spec(x.shape, x.dtype)

    def forward(self, backend, x, value, out=None, key=()):
        return backend.setitem(x, _decode(key), value)

    def gradient(self, ctx, g):
        x, value = ctx.inputs
        key = ctx.attrs["key"]
        gx = SetItem(g, zeros_like(value), key=key) if ctx.needs_grad[0] else None
        gv = unbroadcast(GetItem(g, key=key), value) if ctx.needs_grad[1] else None
        return gx, gv


_MASK_HINT = ("boolean-mask indexing gives a data-dependent shape and is not supported; "
              "use lamina.ops.where(mask, x, 0) to select elementwise")


def _parse_index(item, x):
    """One entry of a subscript -> ("int", i), ("slice", t), ("new",), ("...",), ("array", t)."""
    if item is Ellipsis:
        return ("...",)
    if item is None:
        return ("new",)
    if isinstance(item, builtins.slice):
        bounds = tuple(None if v is None else operator.index(v)
                       for v in (item.start, item.stop, item.step))
        if bounds[2] == 0:
            raise ValueError("getitem: slice step cannot be zero")
        return ("slice", bounds)
    if isinstance(item, bool) or type(item).__name__ == "bool_":
        raise IndexError(f"getitem: {_MASK_HINT}")
    if isinstance(item, numbers.Integral):
        return ("int", int(item))
    if not isinstance(item, TensorBase):
        if not isinstance(item, (list, tuple)) and not hasattr(item, "dtype"):
            raise TypeError(f"getitem: indices must be ints, slices, None, Ellipsis or integer "
                            f"tensors; received {type(item).__name__}")
        item = _index_tensor(item, x)
    if item.dtype == "bool":
        raise IndexError(f"getitem: {_MASK_HINT}")
    if not is_int(item.dtype):
        raise DTypeError(f"getitem: array indices must be integers; received dtype {item.dtype}")
    return ("array", item)


def getitem(x, key):
    """``x[key]`` with numpy's basic indexing: ints, slices, None and Ellipsis.

    One integer array (a tensor, list or array) in the key gathers along its axis through
    ``take`` (placed as numpy places it); boolean masks are not supported (use ``where``).
    """
    x = as_tensor("getitem", x)
    items = [_parse_index(k, x) for k in (key if isinstance(key, tuple) else (key,))]
    kinds = [it[0] for it in items]
    if kinds.count("...") > 1:
        raise IndexError("getitem: an index can only have a single ellipsis ('...')")
    consumed = builtins.sum(k in ("int", "slice", "array") for k in kinds)
    if consumed > x.ndim:
        raise IndexError(f"getitem: too many indices for a tensor of rank {x.ndim}: "
                         f"{consumed} were given")
    if "..." in kinds:
        at = kinds.index("...")
        items[at:at + 1] = [("slice", (None, None, None))] * (x.ndim - consumed)
    arrays = [i for i, it in enumerate(items) if it[0] == "array"]
    if len(arrays) > 1:
        raise IndexError("getitem: only one integer-array index per subscript is supported; "
                         f"received {len(arrays)}. Index one axis at a time, or use "
                         "lamina.ops.take / lamina.ops.take_along_axis")
    gather = None
    if arrays:
        at = arrays[0]
        indices = items[at][1]
        items[at] = ("slice", (None, None, None))
        axis = builtins.sum(it[0] in ("slice", "new") for it in items[:at])
        # numpy: ints count as array indices too; if they and the array are not adjacent,
        # the gathered axes go first
        group = [i for i, it in enumerate(items) if it[0] == "int"] + [at]
        gather = (indices, axis, builtins.max(group) - builtins.min(group) + 1 != len(group))
    key = [it[1] if it[0] in ("int", "slice") else None for it in items]
    while key and key[-1] == (None, None, None):
        key.pop()
    y = GetItem(x, key=tuple(key)) if key else x
    if gather is not None:
        indices, axis, to_front = gather
        y = take(y, indices, axis=axis)
        if to_front and axis:
            dims = tuple(range(axis, axis + indices.ndim))
            y = moveaxis(y, dims, tuple(range(indices.ndim)))
    return y


def _start_indices(op: str, x, start_indices) -> tuple:
    starts = tuple(operator.index(s) for s in start_indices)
    if len(starts) != x.ndim:
        raise ShapeError(f"{op}: the number of dimensions in `start_indices` must match the "
                         f"number of dimensions in `inputs` (one start per axis of the "
                         f"input of shape {describe_shape(x.shape)}); received {starts}")
    return starts


def _region_key(op: str, x, starts, sizes) -> tuple:
    key = []
    for axis, (start, size, d) in enumerate(zip(starts, sizes, x.shape)):
        if start < 0 or size < 0 or (d is not None and start + size > d):
            raise ShapeError(f"{op}: the region starting at {starts} with shape {tuple(sizes)} "
                             f"does not fit the input of shape {describe_shape(x.shape)} "
                             f"(axis {axis})")
        key.append((start, start + size, None))
    return tuple(key)


def slice(inputs, start_indices, shape):
    """The block of ``inputs`` of ``shape`` starting at ``start_indices`` (Keras's
    ``keras.ops.slice``). A size of -1 takes the rest of its axis. ``start_indices`` may be
    a tensor: the block's position is then read when the op runs (JAX's dynamic_slice:
    a negative start counts from the end once, then starts are clamped to fit).

    Args:
        inputs: Input tensor.
        start_indices: The start on each axis (a sequence of ints or an int tensor).
        shape: The size of the block on each axis (-1: the rest).

    Returns:
        The block, of ``shape``.
    """
    x = as_tensor("slice", inputs)
    sizes = tuple(operator.index(s) for s in shape)
    if len(sizes) != x.ndim:
        raise ShapeError(f"slice: the number of dimensions in `inputs` must match the "
                         f"number of dimensions in `shape` (one size per axis of the input "
                         f"of shape {describe_shape(x.shape)}); received {sizes}")
    if isinstance(start_indices, TensorBase):
        if -1 in sizes:     # Keras's symbolic rule: None for those sizes; refused if run
            return refused(ShapeError, f"slice: a size of -1 with tensor 'start_indices' "
                           f"gives a block whose shape depends on their values; give every "
                           f"size explicitly; received shape {sizes}", (x, start_indices),
                           (tuple(None if n == -1 else n for n in sizes), x.dtype))
        if not is_int(start_indices.dtype):
            return _float_starts("slice", x, start_indices, sizes)
        return DynamicSlice(x, start_indices, sizes=sizes)
    starts = _start_indices("slice", x, start_indices)
    if -1 in sizes:
        return GetItem(x, key=_rest_key("slice", x, starts, sizes))
    key = _region_key("slice", x, starts, sizes)
    if builtins.all(s == 0 for s in starts) and sizes == tuple(x.shape):
        return unchanged(x)
    return GetItem(x, key=key)


def _float_starts(op: str, x, starts, shape):
    """Non-integer tensor starts: a DTypeError now, or when run where symbolic (Keras's
    symbolic rule does not look at their dtype)."""
    return refused(DTypeError, f"{op}: argument 'start_indices' must be an integer tensor; "
                   f"received dtype {starts.dtype}", (x, starts), (tuple(shape), x.dtype))


def _rest_key(op: str, x, starts, sizes) -> tuple:
    """The key of a block whose -1 sizes run to the end of their axis."""
    fixed = tuple((d - s if d is not None else 0) if n == -1 else n
                  for s, n, d in zip(starts, sizes, x.shape))
    key = list(_region_key(op, x, starts, fixed))
    for axis, n in enumerate(sizes):
        if n == -1:
            key[axis] = (starts[axis], None, None)
    return tuple(key)


def slice_update(inputs, start_indices, updates):
    """A copy of ``inputs`` with the block at ``start_indices`` replaced by ``updates``
    (cast to the dtype of ``inputs``). ``start_indices`` may be a tensor (see ``slice``).

    Args:
        inputs: Input tensor.
        start_indices: The start on each axis (a sequence of ints or an int tensor).
        updates: The new block.

    Returns:
        A tensor of ``inputs``' shape and dtype.
    """
    x = as_tensor("slice_update", inputs)
    updates = as_tensor("slice_update", updates)
    if updates.ndim != x.ndim:
        raise ShapeError(f"slice_update: arguments 'inputs' and 'updates' must have one rank; "
                         f"received shapes {describe_shape(x.shape)} and "
                         f"{describe_shape(updates.shape)}")
    if updates.dtype != x.dtype:
        updates = cast(updates, x.dtype)
    if isinstance(start_indices, TensorBase):
        if not is_int(start_indices.dtype):
            return _float_starts("slice_update", x, start_indices, x.shape)
        return DynamicSliceUpdate(x, updates, start_indices)
    starts = _start_indices("slice_update", x, start_indices)
    key = _region_key("slice_update", x, starts, updates.shape)
    return SetItem(x, updates, key=key)
