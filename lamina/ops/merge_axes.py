"""Reshapes that need sizes known only when a graph runs.

``reshape`` takes a target shape with at most one unknown size. Merging two adjacent axes
of a tensor with two unknown sizes (an unknown batch and an unknown number of frames, as
``istft`` meets them) needs the sizes of the array it receives: :func:`merge_axes` is one
op that reads them when it runs; its gradient, :class:`ReshapeLike`, reshapes to the shape
of another tensor when it runs.
"""
from __future__ import annotations

from ..core.op import Op, Spec, normalize_axis, register_op
from ..errors import ShapeError, describe_shape

__all__: list[str] = []


def _count(shape):
    total = 1
    for d in shape:
        if d is None:
            return None
        total *= d
    return total


@register_op
class MergeAxes(Op):
    """``x`` with axes ``axis`` and ``axis + 1`` merged into one (row-major)."""
    name = "merge_axes"

    def output_spec(self, x, axis=0):
        if not 0 <= axis < len(x.shape) - 1:
            raise ShapeError(f"merge_axes: argument 'axis' must be in [0, {len(x.shape) - 1}) "
                             f"for an input of shape {describe_shape(x.shape)}; received {axis}")
        a, b = x.shape[axis], x.shape[axis + 1]
        merged = None if a is None or b is None else a * b
        return Spec(tuple(x.shape[:axis]) + (merged,) + tuple(x.shape[axis + 2:]), x.dtype)

    def forward(self, backend, x, out=None, axis=0):
        shape = x.shape
        return backend.reshape(x, shape[:axis] + (shape[axis] * shape[axis + 1],) +
                               shape[axis + 2:])

    def gradient(self, ctx, g):
        return (ReshapeLike(g, ctx.inputs[0]),)


@register_op
class ReshapeLike(Op):
    """``x`` reshaped to the shape of ``like`` (whose values are not read)."""
    name = "reshape_like"

    def output_spec(self, x, like):
        n, m = _count(x.shape), _count(like.shape)
        if n is not None and m is not None and n != m:
            raise ShapeError(f"reshape_like: cannot reshape an input of shape "
                             f"{describe_shape(x.shape)} into {describe_shape(like.shape)}")
        return Spec(tuple(like.shape), x.dtype)

    def forward(self, backend, x, like, out=None):
        if x.size != like.size:
            raise ShapeError(f"reshape_like: cannot reshape an input of shape "
                             f"{describe_shape(x.shape)} into {describe_shape(like.shape)}")
        return backend.reshape(x, like.shape)

    def gradient(self, ctx, g):
        return ReshapeLike(g, ctx.inputs[0]), None


def merge_axes(x, axis: int):
    """``x`` with axes ``axis`` and ``axis + 1`` merged, whatever sizes are unknown."""
    return MergeAxes(x, axis=normalize_axis("merge_axes", axis, len(x.shape)))
