"""Movement ops: reshape, broadcasting, transpose, concatenation and splitting.

Keras 3's ``keras.ops`` names and signatures. Primitives: reshape, broadcast_to, transpose,
expand_dims, squeeze, concatenate, split (multi-output; the two are each other's
gradient). Everything else (stack, unstack, moveaxis, swapaxes) is composed of those.
Padding, tiling, repeating and flipping are in ``replicate.py``; basic indexing (getitem,
slice, slice_update) in ``slicing.py``.
"""
from __future__ import annotations

import builtins
import numbers

from ..errors import DTypeError, ShapeError, describe_shape
from ..core.tensor import TensorBase
from .core import as_tensor, as_tensors, convert_to_tensor, to_backend_tensor, unchanged
from .elementwise import unbroadcast
from .introspection import DynamicDim
from ..core.op import Op, Spec, normalize_axes, normalize_axis, register_op, shape_from_like

__all__ = ["reshape", "broadcast_to", "transpose", "expand_dims", "squeeze", "concatenate",
           "stack", "split", "unstack", "moveaxis", "swapaxes"]


def _resolve_shape(op: str, in_shape, shape) -> tuple:
    """Fill one -1 in ``shape`` from ``in_shape``'s size, checking the sizes agree."""
    shape = tuple(int(d) if d is not None else -1 for d in shape)
    if any(d is None for d in in_shape):
        # A symbolic input: a target that keeps the unknown batch size first can still
        # infer one more -1 from the known sizes; other unknown sizes stay unknown.
        if in_shape[0] is None and None not in in_shape[1:] and shape and shape[0] == -1 \
                and shape[1:].count(-1) <= 1:
            try:
                return (None, *_resolve_shape(op, in_shape[1:], shape[1:]))
            except ShapeError:
                pass             # the batch axis is merged with others: size unknown
        return tuple(None if d == -1 else d for d in shape)
    if shape.count(-1) > 1:
        raise ShapeError(f"{op}: argument 'newshape' may contain at most one -1; "
                         f"received {describe_shape(shape)}")
    size = 1
    for d in in_shape:
        size *= d
    known = 1
    for d in shape:
        if d != -1:
            if d < 0:
                raise ShapeError(f"{op}: argument 'newshape' has a negative size; "
                                 f"received {describe_shape(shape)}")
            known *= d
    if -1 in shape:
        if known == 0 or size % known:
            raise ShapeError(f"{op}: cannot reshape an input of shape {describe_shape(in_shape)} "
                             f"({size} elements) into {describe_shape(shape)}")
        shape = tuple(size // known if d == -1 else d for d in shape)
    elif known != size:
        raise ShapeError(f"{op}: cannot reshape an input of shape {describe_shape(in_shape)} "
                         f"({size} elements) into {describe_shape(shape)} ({known} elements)")
    return shape


@register_op
class Reshape(Op):
    name = "reshape"

    def output_spec(self, x, shape):
        return Spec(_resolve_shape(self.name, x.shape, shape), x.dtype)

    def forward(self, backend, x, out=None, shape=None):
        if None in shape:            # traced with an unknown size: numpy's -1 infers it
            shape = tuple(-1 if d is None else d for d in shape)
        return backend.reshape(x, shape)

    def gradient(self, ctx, g):
        return (reshape(g, ctx.inputs[0].shape),)


def reshape(x, newshape):
    """Keras's ``keras.ops.reshape(x, newshape)``; one size may be -1. A size that
    ``lamina.ops.shape`` gave for a symbolic tensor (its batch size) stays unknown.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        newshape: The new shape, a tuple of ints (one may be -1).

    Returns:
        A tensor of ``newshape`` with ``x``'s elements in row-major order.

    Example:

    >>> lamina.ops.reshape(np.arange(6), (2, -1)).shape
    (2, 3)
    """
    x = as_tensor("reshape", x)
    if isinstance(newshape, int):
        newshape = (newshape,)
    newshape = tuple(None if isinstance(d, DynamicDim) else d for d in newshape)
    shape = _resolve_shape("reshape", x.shape, newshape)
    if shape == tuple(x.shape):
        return unchanged(x)
    return Reshape(x, shape=shape)


@register_op
class BroadcastTo(Op):
    """``x`` broadcast to ``shape``; sizes None in ``shape`` (a symbolic batch) are taken
    from the optional second input ``like`` when the op runs (``broadcast_like``)."""
    name = "broadcast_to"

    def output_spec(self, x, *like, shape):
        shape = shape_from_like(self.name, shape, like)
        if len(shape) < len(x.shape) or any(
                d not in (1, s) for d, s in zip(x.shape[::-1], shape[::-1])
                if d is not None and s is not None):
            raise ShapeError(f"broadcast_to: cannot broadcast an input of shape "
                             f"{describe_shape(x.shape)} to {describe_shape(shape)}")
        return Spec(tuple(shape), x.dtype)

    def forward(self, backend, x, *like, out=None, shape=None):
        if like:
            shape = tuple(t if d is None else d for d, t in zip(shape, like[0].shape))
        return backend.broadcast_to(x, shape)

    def gradient(self, ctx, g):
        return (unbroadcast(g, ctx.inputs[0]),) + (None,) * (len(ctx.inputs) - 1)


def broadcast_to(x, shape):
    """Broadcast a tensor to a new shape, as numpy does.

    Args:
        x: the tensor.
        shape: the new shape; ``x``'s axes must be 1 or equal to the new trailing axes.

    Returns:
        A tensor of shape ``shape``.

    Example:

    >>> lamina.ops.broadcast_to(lamina.ops.array([1, 2, 3]), (2, 3))
    """
    x = as_tensor("broadcast_to", x)
    shape = tuple(shape)
    if shape == tuple(x.shape):
        return unchanged(x)
    return BroadcastTo(x, shape=shape)


def broadcast_like(x, like):
    """``x`` broadcast to ``like``'s shape, read when the op runs where it holds unknown
    sizes (a batch-polymorphic graph), so no size is baked in while tracing."""
    x = as_tensor("broadcast_like", x)
    shape = tuple(like.shape)
    if None not in shape or not isinstance(like, TensorBase):
        return broadcast_to(x, shape)
    if shape == tuple(x.shape):
        return x
    return BroadcastTo(x, like, shape=shape)


def _ints(value):
    """An int or a list of ints from Python or numpy values or a concrete tensor."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, numbers.Integral):
        return int(value)
    return [int(v) for v in value]


# --------------------------------------------------------------------------- permutations
@register_op
class Transpose(Op):
    name = "transpose"

    def output_spec(self, x, axes):
        if sorted(axes) != list(range(len(x.shape))):
            raise ShapeError(f"transpose: argument 'axes' must be a permutation of "
                             f"{tuple(range(len(x.shape)))}; received {axes}")
        return Spec(tuple(x.shape[a] for a in axes), x.dtype)

    def forward(self, backend, x, out=None, axes=()):
        return backend.transpose(x, axes)

    def gradient(self, ctx, g):
        axes = ctx.attrs["axes"]
        inverse = [0] * len(axes)
        for i, a in enumerate(axes):
            inverse[a] = i
        return (transpose(g, tuple(inverse)),)


def transpose(x, axes=None):
    """``x`` with its axes permuted by ``axes`` (reversed when None), as numpy.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axes: A permutation of ``range(x.ndim)``; None reverses the axes.

    Returns:
        The permuted tensor.

    Example:

    >>> lamina.ops.transpose(np.zeros((2, 3, 4)), (0, 2, 1)).shape
    (2, 4, 3)
    """
    x = as_tensor("transpose", x)
    ndim = x.ndim
    if axes is None:
        axes = tuple(range(ndim))[::-1]
    else:
        axes = tuple(axes)
        if len(axes) != ndim:
            raise ShapeError(f"transpose: argument 'axes' must list all {ndim} axes of the "
                             f"input of shape {describe_shape(x.shape)}; received {axes}")
        axes = tuple(normalize_axis("transpose", a, ndim, "axes") for a in axes)
        if len(set(axes)) != ndim:
            raise ShapeError(f"transpose: argument 'axes' repeats an axis; received {axes}")
    if axes == tuple(range(ndim)):
        return unchanged(x)
    return Transpose(x, axes=axes)


def moveaxis(x, source, destination):
    """``x`` with the axes ``source`` moved to positions ``destination`` (numpy's rule).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        source: The axis or axes to move (an int or a sequence).
        destination: Their new positions (matching ``source``).

    Returns:
        The permuted tensor.
    """
    x = as_tensor("moveaxis", x)
    ndim = x.ndim
    source = (source,) if isinstance(source, int) else tuple(source)
    destination = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(source) != len(destination):
        raise ValueError(f"moveaxis: arguments 'source' and 'destination' must have the same "
                         f"number of axes; received {source} and {destination}")
    source = [normalize_axis("moveaxis", a, ndim, "source") for a in source]
    destination = [normalize_axis("moveaxis", a, ndim, "destination") for a in destination]
    if len(set(source)) != len(source) or len(set(destination)) != len(destination):
        raise ShapeError(f"moveaxis: repeated axes in 'source' {tuple(source)} or "
                         f"'destination' {tuple(destination)}")
    order = [a for a in range(ndim) if a not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return transpose(x, tuple(order))


def swapaxes(x, axis1, axis2):
    """``x`` with axes ``axis1`` and ``axis2`` exchanged.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis1: The first axis.
        axis2: The second axis.

    Returns:
        The permuted tensor.
    """
    x = as_tensor("swapaxes", x)
    a = normalize_axis("swapaxes", axis1, x.ndim, "axis1")
    b = normalize_axis("swapaxes", axis2, x.ndim, "axis2")
    order = list(range(x.ndim))
    order[a], order[b] = order[b], order[a]
    return transpose(x, tuple(order))


# --------------------------------------------------------------------------- unit axes
def _insert_unit_axes(shape, axes) -> tuple:
    out = list(shape)
    for a in axes:                   # sorted: each insertion lands at its final position
        out.insert(a, 1)
    return tuple(out)


@register_op
class ExpandDims(Op):
    name = "expand_dims"

    def output_spec(self, x, axis):
        return Spec(_insert_unit_axes(x.shape, axis), x.dtype)

    def forward(self, backend, x, out=None, axis=()):
        return backend.reshape(x, _insert_unit_axes(x.shape, axis))

    def gradient(self, ctx, g):
        return (squeeze(g, ctx.attrs["axis"]),)


@register_op
class Squeeze(Op):
    name = "squeeze"

    def output_spec(self, x, axis):
        for a in axis:
            if x.shape[a] not in (1, None):
                raise ShapeError(f"squeeze: cannot squeeze axis {a} of size {x.shape[a]} "
                                 f"(only size-1 axes); received shape {describe_shape(x.shape)}")
        return Spec(tuple(d for i, d in enumerate(x.shape) if i not in axis), x.dtype)

    def forward(self, backend, x, out=None, axis=()):
        return backend.reshape(x, tuple(d for i, d in enumerate(x.shape) if i not in axis))

    def gradient(self, ctx, g):
        return (expand_dims(g, ctx.attrs["axis"]),)


def expand_dims(x, axis):
    """``x`` with a size-1 axis inserted at ``axis`` (an int or a tuple of positions in the
    result).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The position(s) of the new axes: an int or a tuple.

    Returns:
        ``x`` with the new size-1 axes.

    Example:

    >>> lamina.ops.expand_dims(np.zeros((2, 3)), 0).shape
    (1, 2, 3)
    """
    x = as_tensor("expand_dims", x)
    count = 1 if isinstance(axis, int) else len(tuple(axis))
    axes = normalize_axes("expand_dims", axis, x.ndim + count)
    return ExpandDims(x, axis=axes) if axes else x


def squeeze(x, axis=None):
    """``x`` without the size-1 axes ``axis`` (all of them when None).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The size-1 axis or axes to remove; None removes all.

    Returns:
        ``x`` without those axes.
    """
    x = as_tensor("squeeze", x)
    if axis is None:
        axes = tuple(i for i, d in enumerate(x.shape) if d == 1)
    else:
        axes = normalize_axes("squeeze", axis, x.ndim)
    return Squeeze(x, axis=axes) if axes else x


# --------------------------------------------------------------------------- concatenate, split
@register_op
class Concatenate(Op):
    name = "concatenate"

    def output_spec(self, *xs, axis=0):
        first = xs[0]
        size = 0
        for i, x in enumerate(xs):
            if x.dtype != first.dtype:
                raise DTypeError(f"concatenate: all inputs must have one dtype "
                                 f"(lamina.ops.concatenate promotes them); input 0 is "
                                 f"{first.dtype} and input {i} is {x.dtype}")
            if len(x.shape) != len(first.shape) or any(
                    a != b and None not in (a, b)
                    for k, (a, b) in enumerate(zip(x.shape, first.shape)) if k != axis):
                raise ShapeError(f"concatenate: inputs must have the same shape except along "
                                 f"axis {axis}; input 0 has shape {describe_shape(first.shape)}"
                                 f" and input {i} has shape {describe_shape(x.shape)}")
            d = x.shape[axis]
            size = None if d is None or size is None else size + d
        shape = list(first.shape)
        shape[axis] = size
        return Spec(tuple(shape), first.dtype)

    def forward(self, backend, *arrays, out=None, axis=0):
        return backend.concatenate(arrays, axis)

    def gradient(self, ctx, g):
        axis = ctx.attrs["axis"]
        return tuple(Split(g, sizes=tuple(x.shape[axis] for x in ctx.inputs), axis=axis))


@register_op
class Split(Op):
    """``x`` cut along ``axis`` into consecutive pieces of ``sizes``: one output per piece."""
    name = "split"

    def output_spec(self, x, sizes, axis):
        d = x.shape[axis]
        if d is not None and builtins.sum(sizes) != d:
            raise ShapeError(f"split: piece sizes {sizes} do not add up to the size {d} of "
                             f"axis {axis}; received shape {describe_shape(x.shape)}")
        return tuple(Spec(x.shape[:axis] + (s,) + x.shape[axis + 1:], x.dtype) for s in sizes)

    def forward(self, backend, x, out=None, sizes=(), axis=0):
        lead = (builtins.slice(None),) * axis
        pieces, start = [], 0
        for s in sizes:
            pieces.append(backend.getitem(x, lead + (builtins.slice(start, start + s),)))
            start += s
        return tuple(pieces)

    def gradient(self, ctx, *grads):
        return (concatenate(list(grads), axis=ctx.attrs["axis"]),)


def concatenate(xs, axis=0):
    """The tensors ``xs`` joined along ``axis`` (promoted to one dtype).

    Args:
        xs: A list or tuple of tensors, of one shape except along ``axis``.
        axis: The axis to join along. Defaults to 0.

    Returns:
        The joined tensor.

    Example:

    >>> a, b = np.zeros((2, 3)), np.ones((1, 3))
    >>> lamina.ops.concatenate([a, b], axis=0).shape
    (3, 3)
    """
    xs = list(xs)
    if not xs:
        raise ValueError("concatenate: argument 'xs' must hold at least one tensor")
    xs = as_tensors("concatenate", *xs) if len(xs) > 1 else [as_tensor("concatenate", xs[0])]
    if xs[0].ndim == 0:
        raise ShapeError("concatenate: zero-dimensional tensors cannot be concatenated; "
                         "use lamina.ops.stack")
    axis = normalize_axis("concatenate", axis, xs[0].ndim)
    if len(xs) == 1:
        return xs[0]
    return Concatenate(*xs, axis=axis)


def stack(x, axis=0):
    """The tensors ``x`` (one shape) joined along a new axis ``axis``.

    Args:
        x: A list or tuple of tensors of one shape.
        axis: Where the new axis goes. Defaults to 0.

    Returns:
        A tensor with one more axis than the inputs.

    Example:

    >>> lamina.ops.stack([np.zeros(3), np.ones(3)], axis=1).shape
    (3, 2)
    """
    xs = list(x)
    if not xs:
        raise ValueError("stack: argument 'x' must hold at least one tensor")
    xs = as_tensors("stack", *xs) if len(xs) > 1 else [as_tensor("stack", xs[0])]
    for i, t in enumerate(xs):
        if t.shape != xs[0].shape:
            raise ShapeError(f"stack: all inputs must have one shape; input 0 has shape "
                             f"{describe_shape(xs[0].shape)} and input {i} has shape "
                             f"{describe_shape(t.shape)}")
    axis = normalize_axis("stack", axis, xs[0].ndim + 1)
    return concatenate([expand_dims(t, axis) for t in xs], axis=axis)


def split(x, indices_or_sections, axis=0) -> list:
    """``x`` cut along ``axis``: into ``indices_or_sections`` equal pieces (an int, which must
    divide the axis) or at the given split points (a sequence of ints), as numpy.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        indices_or_sections: An int N (N equal pieces; it must divide the axis) or a
            sequence of split points.
        axis: The axis to cut along. Defaults to 0.

    Returns:
        A list of tensors.

    Example:

    >>> [p.shape for p in lamina.ops.split(np.zeros((4, 2)), 2)]
    [(2, 2), (2, 2)]
    """
    x = as_tensor("split", x)
    axis = normalize_axis("split", axis, x.ndim)
    size = x.shape[axis]
    if size is None:
        raise ShapeError(f"split: axis {axis} has an unknown size; received shape "
                         f"{describe_shape(x.shape)}")
    indices_or_sections = _ints(indices_or_sections)
    if isinstance(indices_or_sections, int):
        sections = indices_or_sections
        if sections <= 0 or size % sections:
            raise ShapeError(f"split: {sections} sections do not divide axis {axis} of size "
                             f"{size} equally; received shape {describe_shape(x.shape)}")
        sizes = (size // sections,) * sections
    else:
        points = [builtins.min(builtins.max(int(p) + (size if p < 0 else 0), 0), size)
                  for p in indices_or_sections]
        if points != sorted(points):
            raise ValueError(f"split: split points must be increasing; received "
                             f"{list(indices_or_sections)}")
        bounds = [0] + points + [size]
        sizes = tuple(b - a for a, b in zip(bounds, bounds[1:]))
    if len(sizes) == 1:
        return [x]
    return list(Split(x, sizes=sizes, axis=axis))


def unstack(x, num=None, axis=0) -> list:
    """The slices of ``x`` along ``axis``, as a list of tensors without that axis.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        num: The number of slices, which must equal the size of ``axis``; None reads it from
            ``x``'s shape.
        axis: The axis to cut along. Defaults to 0.

    Returns:
        A list of tensors.
    """
    x = as_tensor("unstack", x)
    axis = normalize_axis("unstack", axis, x.ndim)
    size = x.shape[axis] if x.shape[axis] is not None else num
    if size is None:
        raise ShapeError(f"unstack: Cannot infer argument `num` from shape "
                         f"{describe_shape(x.shape)}: axis {axis} has an unknown size; pass "
                         f"'num'")
    if num is not None and num != size:
        raise ShapeError(f"unstack: argument 'num' is {num} but axis {axis} has size {size}")
    if size == 0:
        return []
    pieces = [x] if size == 1 else list(Split(x, sizes=(1,) * size, axis=axis))
    return [squeeze(p, axis) for p in pieces]


def _index_tensor(values, like):
    """Host index data (a list or array) as a tensor on ``like``'s backend."""
    empty = isinstance(values, (list, tuple)) and not values      # would default to float
    return to_backend_tensor(values, dtype="int32" if empty else None,
                             backend=getattr(like, "backend", None))
