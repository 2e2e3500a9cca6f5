"""Movement ops: reshape, transpose, concatenation, padding and tiling.

Keras 3's ``keras.ops`` names and signatures. Primitives: reshape, broadcast_to, transpose,
expand_dims, squeeze, concatenate, split (multi-output; the two are each other's
gradient), pad (constant), tile, repeat and flip. Everything else (stack, unstack, moveaxis,
swapaxes, pad's reflect/symmetric/edge/wrap modes, repeat with per-element counts) is
composed of those. Basic indexing (getitem, slice, slice_update) is in ``slicing.py``.
"""
from __future__ import annotations

import builtins
import numbers

from ..errors import DTypeError, ShapeError, describe_shape
from ..autograd.tensor import TensorBase
from .core import as_tensor, as_tensors, convert_to_tensor, unchanged
from .elementwise import unbroadcast
from .op import Op, Spec, normalize_axes, normalize_axis, register_op, shape_from_like

__all__ = ["reshape", "broadcast_to", "transpose", "expand_dims", "squeeze", "concatenate",
           "stack", "split", "unstack", "pad", "tile", "repeat", "flip", "moveaxis",
           "swapaxes"]


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
    """Keras's ``keras.ops.reshape(x, newshape)``; one size may be -1."""
    x = as_tensor("reshape", x)
    if isinstance(newshape, int):
        newshape = (newshape,)
    shape = _resolve_shape("reshape", x.shape, tuple(newshape))
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
    """``x`` with its axes permuted by ``axes`` (reversed when None), as numpy."""
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
    """``x`` with the axes ``source`` moved to positions ``destination`` (numpy's rule)."""
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
    """``x`` with axes ``axis1`` and ``axis2`` exchanged."""
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
    result)."""
    x = as_tensor("expand_dims", x)
    count = 1 if isinstance(axis, int) else len(tuple(axis))
    axes = normalize_axes("expand_dims", axis, x.ndim + count)
    return ExpandDims(x, axis=axes) if axes else x


def squeeze(x, axis=None):
    """``x`` without the size-1 axes ``axis`` (all of them when None)."""
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
    """The tensors ``xs`` joined along ``axis`` (promoted to one dtype)."""
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
    """The tensors ``x`` (one shape) joined along a new axis ``axis``."""
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
    divide the axis) or at the given split points (a sequence of ints), as numpy."""
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
    """The slices of ``x`` along ``axis``, as a list of tensors without that axis."""
    x = as_tensor("unstack", x)
    axis = normalize_axis("unstack", axis, x.ndim)
    size = x.shape[axis] if x.shape[axis] is not None else num
    if size is None:
        raise ShapeError(f"unstack: axis {axis} has an unknown size and 'num' is None; "
                         f"received shape {describe_shape(x.shape)}")
    if num is not None and num != size:
        raise ShapeError(f"unstack: argument 'num' is {num} but axis {axis} has size {size}")
    if size == 0:
        return []
    pieces = [x] if size == 1 else list(Split(x, sizes=(1,) * size, axis=axis))
    return [squeeze(p, axis) for p in pieces]


# --------------------------------------------------------------------------- pad
@register_op
class Pad(Op):
    name = "pad"

    def output_spec(self, x, pads, value=0):
        if len(pads) != len(x.shape):
            raise ShapeError(f"pad: argument 'pad_width' needs one (before, after) pair per "
                             f"axis of the input of shape {describe_shape(x.shape)}; received "
                             f"{pads}")
        return Spec(tuple(None if d is None else d + a + b for d, (a, b) in zip(x.shape, pads)),
                    x.dtype)

    def forward(self, backend, x, out=None, pads=(), value=0):
        return backend.pad(x, pads, value)

    def gradient(self, ctx, g):
        from .slicing import GetItem
        key = tuple((a, -b if b else None, None) for a, b in ctx.attrs["pads"])
        return (GetItem(g, key=key),)


_PAD_MODES = ("constant", "reflect", "symmetric", "edge", "wrap")


def _pad_widths(pad_width, ndim: int) -> tuple:
    """numpy's pad_width forms (int, (n,), (before, after), per-axis pairs) -> pairs."""
    if isinstance(pad_width, numbers.Integral):
        pairs = ((int(pad_width), int(pad_width)),) * ndim
    else:
        entries = list(pad_width)
        if entries and builtins.all(isinstance(e, numbers.Integral) for e in entries):
            if len(entries) == 1:
                entries = [(entries[0], entries[0])]
            elif len(entries) == 2:
                entries = [tuple(entries)]
            else:
                raise ShapeError(f"pad: argument 'pad_width' must be an int, a (before, after) "
                                 f"pair or one pair per axis; received {pad_width!r}")
        pairs = []
        for e in entries:
            e = tuple(e)
            if len(e) == 1:
                e = (e[0], e[0])
            if len(e) != 2:
                raise ShapeError(f"pad: each entry of 'pad_width' must be a (before, after) "
                                 f"pair; received {pad_width!r}")
            pairs.append((int(e[0]), int(e[1])))
        if len(pairs) == 1:
            pairs = pairs * ndim
        if len(pairs) != ndim:
            raise ShapeError(f"pad: argument 'pad_width' needs one (before, after) pair per "
                             f"axis ({ndim}); received {pad_width!r}")
        pairs = tuple(pairs)
    if builtins.any(a < 0 or b < 0 for a, b in pairs):
        raise ValueError(f"pad: argument 'pad_width' must not be negative; received {pad_width!r}")
    return pairs


def _pad_axis(x, axis: int, before: int, after: int, mode: str):
    """One axis of a non-constant pad, from slices, flips and a concatenation."""
    size = x.shape[axis]
    if size is None:
        raise ShapeError(f"pad: mode {mode!r} needs a known size for axis {axis}; received "
                         f"shape {describe_shape(x.shape)}")
    limit = size - 1 if mode == "reflect" else size
    if builtins.max(before, after) > limit:
        raise ShapeError(f"pad: mode {mode!r} needs pad widths of at most {limit} on axis "
                         f"{axis} of size {size}; received ({before}, {after})")

    from .slicing import slice as take_slice

    def part(start, stop):
        return take_slice(x, tuple(start if i == axis else 0 for i in range(x.ndim)),
                     tuple(stop - start if i == axis else d for i, d in enumerate(x.shape)))

    if mode == "edge":
        left = repeat(part(0, 1), before, axis=axis)
        right = repeat(part(size - 1, size), after, axis=axis)
    elif mode == "wrap":
        left, right = part(size - before, size), part(0, after)
    else:
        skip = 1 if mode == "reflect" else 0
        left = flip(part(skip, skip + before), axis)
        right = flip(part(size - skip - after, size - skip), axis)
    pieces = ([left] if before else []) + [x] + ([right] if after else [])
    return concatenate(pieces, axis=axis)


def pad(x, pad_width, mode="constant", constant_values=None):
    """``x`` padded by ``pad_width`` (numpy's forms) with ``mode`` one of "constant" (the
    value ``constant_values``, default 0), "reflect", "symmetric", "edge" or "wrap"."""
    x = as_tensor("pad", x)
    pads = _pad_widths(pad_width, x.ndim)
    if mode not in _PAD_MODES:
        raise ValueError(f"pad: argument 'mode' must be one of {_PAD_MODES}; received {mode!r}")
    if mode != "constant":
        if constant_values is not None:
            raise ValueError(f"pad: argument 'constant_values' is only valid with mode "
                             f"'constant'; received mode {mode!r}")
        for axis, (before, after) in enumerate(pads):
            if before or after:
                x = _pad_axis(x, axis, before, after, mode)
        return unchanged(x)
    value = 0 if constant_values is None else constant_values
    if hasattr(value, "item"):
        value = value.item()         # a tensor or a numpy scalar -> a Python number
    if not isinstance(value, (int, float, bool)):
        raise TypeError(f"pad: argument 'constant_values' must be a number; received {value!r}")
    if builtins.all(a == 0 and b == 0 for a, b in pads):
        return unchanged(x)
    return Pad(x, pads=pads, value=value)


# --------------------------------------------------------------------------- tile, repeat, flip
@register_op
class Tile(Op):
    name = "tile"

    def output_spec(self, x, repeats):
        if len(repeats) != len(x.shape):
            raise ShapeError(f"tile: needs one repeat count per axis of the input of shape "
                             f"{describe_shape(x.shape)}; received {repeats}")
        return Spec(tuple(None if d is None else d * r for d, r in zip(x.shape, repeats)),
                    x.dtype)

    def forward(self, backend, x, out=None, repeats=()):
        return backend.tile(x, repeats)

    def gradient(self, ctx, g):
        from .reduction import sum as reduce_sum
        x, repeats = ctx.inputs[0], ctx.attrs["repeats"]
        interleaved = tuple(v for r, d in zip(repeats, x.shape) for v in (r, d))
        g = reduce_sum(reshape(g, interleaved), axis=tuple(range(0, 2 * x.ndim, 2)))
        return (g,)


def tile(x, repeats):
    """``x`` repeated ``repeats`` times along each axis, as numpy (a short ``repeats`` is
    padded with leading 1s; a long one gives ``x`` leading unit axes)."""
    x = as_tensor("tile", x)
    repeats = _ints(repeats)
    repeats = (repeats,) if isinstance(repeats, int) else tuple(repeats)
    if builtins.any(r < 0 for r in repeats):
        raise ValueError(f"tile: argument 'repeats' must not be negative; received {repeats}")
    if len(repeats) > x.ndim:
        x = expand_dims(x, tuple(range(len(repeats) - x.ndim)))
    repeats = (1,) * (x.ndim - len(repeats)) + repeats
    if builtins.all(r == 1 for r in repeats):
        return unchanged(x)
    return Tile(x, repeats=repeats)


@register_op
class Repeat(Op):
    name = "repeat"

    def output_spec(self, x, repeats, axis):
        shape = list(x.shape)
        shape[axis] = None if shape[axis] is None else shape[axis] * repeats
        return Spec(tuple(shape), x.dtype)

    def forward(self, backend, x, out=None, repeats=1, axis=0):
        return backend.repeat(x, repeats, axis)

    def gradient(self, ctx, g):
        from .reduction import sum as reduce_sum
        x, repeats, axis = ctx.inputs[0], ctx.attrs["repeats"], ctx.attrs["axis"]
        split_shape = x.shape[:axis] + (x.shape[axis], repeats) + x.shape[axis + 1:]
        return (reduce_sum(reshape(g, split_shape), axis=axis + 1),)


def repeat(x, repeats, axis=None):
    """Each element of ``x`` repeated ``repeats`` times along ``axis`` (of the flattened
    ``x`` when None). ``repeats`` is an int, or one count per element along the axis."""
    x = as_tensor("repeat", x)
    if axis is None:
        x = reshape(x, (-1,))
        axis = 0
    axis = normalize_axis("repeat", axis, x.ndim)
    repeats = _ints(repeats)
    if not isinstance(repeats, int):
        counts = repeats
        if len(counts) == 1:
            repeats = counts[0]
        else:
            if len(counts) != x.shape[axis] or builtins.any(c < 0 for c in counts):
                raise ShapeError(f"repeat: argument 'repeats' needs one non-negative count per "
                                 f"element of axis {axis} (size {x.shape[axis]}); received "
                                 f"{len(counts)} counts")
            from .indexing import take
            positions = [i for i, c in enumerate(counts) for _ in range(c)]
            return take(x, _index_tensor(positions, x), axis=axis)
    repeats = int(repeats)
    if repeats < 0:
        raise ValueError(f"repeat: argument 'repeats' must not be negative; received {repeats}")
    if repeats == 1:
        return unchanged(x)
    return Repeat(x, repeats=repeats, axis=axis)


@register_op
class Flip(Op):
    name = "flip"

    def output_spec(self, x, axis):
        return Spec(x.shape, x.dtype)

    def forward(self, backend, x, out=None, axis=None):
        return backend.flip(x, axis)

    def gradient(self, ctx, g):
        return (Flip(g, axis=ctx.attrs["axis"]),)


def flip(x, axis=None):
    """``x`` with the order of elements reversed along ``axis`` (all axes when None)."""
    x = as_tensor("flip", x)
    axes = normalize_axes("flip", axis, x.ndim)
    if axes == () or x.ndim == 0:
        return unchanged(x)
    return Flip(x, axis=axes)


def _index_tensor(values, like):
    """Host index data (a list or array) as a tensor on ``like``'s backend."""
    empty = isinstance(values, (list, tuple)) and not values      # would default to float
    return convert_to_tensor(values, dtype="int32" if empty else None,
                             backend=getattr(like, "backend", None))
