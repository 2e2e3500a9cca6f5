"""``slice`` and ``slice_update`` at start indices held in a tensor (Keras's
``keras.ops.slice`` / ``slice_update`` with tensor ``start_indices``; JAX's
``lax.dynamic_slice`` / ``dynamic_update_slice``): the block's shape is static, its
position is read from the ``starts`` input when the op runs, so one graph serves every
position. As in JAX, a negative start counts from the end of its axis once, and a start
is then clamped so that the block fits inside the input.
"""
from __future__ import annotations

from ..dtypes import is_int
from ..errors import DTypeError, ShapeError, describe_shape
from .core import zeros_like
from ..core.op import Op, Spec, register_op

__all__ = ["DynamicSlice", "DynamicSliceUpdate"]


def _check_starts(op: str, x, starts, sizes) -> None:
    if not is_int(starts.dtype):
        raise DTypeError(f"{op}: argument 'start_indices' must be an integer tensor; "
                         f"received dtype {starts.dtype}")
    if len(starts.shape) != 1 or starts.shape[0] not in (None, len(x.shape)):
        raise ShapeError(f"{op}: the number of dimensions in `start_indices` must match the "
                         f"number of dimensions in `inputs`: 'start_indices' must have shape "
                         f"({len(x.shape)},) for the input of shape "
                         f"{describe_shape(x.shape)}; received {describe_shape(starts.shape)}")
    for axis, (size, d) in enumerate(zip(sizes, x.shape)):
        if size is not None and (size < 0 or (d is not None and size > d)):
            raise ShapeError(f"{op}: a block of shape {describe_shape(sizes)} does not fit the "
                             f"input of shape {describe_shape(x.shape)} (axis {axis})")


def _key(backend, starts, sizes, shape) -> tuple:
    """The basic-indexing key of the block (JAX's wrap-once-then-clamp rule)."""
    key = []
    for start, size, d in zip(backend.to_host(starts).tolist(), sizes, shape):
        start = start + d if start < 0 else start
        start = min(max(start, 0), d - size)
        key.append(slice(start, start + size))
    return tuple(key)


@register_op
class DynamicSlice(Op):
    """The block of ``x`` of shape ``sizes`` at the position held in ``starts``."""
    name = "dynamic_slice"

    def output_spec(self, x, starts, sizes=()):
        _check_starts(self.name, x, starts, sizes)
        return Spec(tuple(sizes), x.dtype)

    def forward(self, backend, x, starts, out=None, sizes=()):
        return backend.getitem(x, _key(backend, starts, sizes, x.shape))

    def gradient(self, ctx, g):
        x, starts = ctx.inputs
        return DynamicSliceUpdate(zeros_like(x), g, starts), None


@register_op
class DynamicSliceUpdate(Op):
    """A copy of ``x`` with the block at the position held in ``starts`` replaced by
    ``updates`` (of ``x``'s rank and dtype)."""
    name = "dynamic_slice_update"

    def output_spec(self, x, updates, starts):
        if updates.dtype != x.dtype:
            raise DTypeError(f"slice_update: arguments 'inputs' and 'updates' must have one "
                             f"dtype; received {x.dtype} and {updates.dtype}")
        if len(updates.shape) != len(x.shape):
            raise ShapeError(f"slice_update: arguments 'inputs' and 'updates' must have one "
                             f"rank; received shapes {describe_shape(x.shape)} and "
                             f"{describe_shape(updates.shape)}")
        _check_starts(self.name, x, starts, tuple(updates.shape))
        return Spec(tuple(x.shape), x.dtype)

    def forward(self, backend, x, updates, starts, out=None):
        return backend.setitem(x, _key(backend, starts, updates.shape, x.shape), updates)

    def gradient(self, ctx, g):
        x, updates, starts = ctx.inputs
        gx = DynamicSliceUpdate(g, zeros_like(updates), starts) if ctx.needs_grad[0] else None
        gu = DynamicSlice(g, starts, sizes=tuple(updates.shape)) if ctx.needs_grad[1] else None
        return gx, gu, None
