"""Ops that copy elements into new positions: pad, tile, repeat and flip.

Keras 3's ``keras.ops`` names and signatures. Primitives: pad (constant), tile, repeat and
flip; pad's reflect/symmetric/edge/wrap modes and repeat with per-element counts are
composed of them and of the movement ops in ``reshaping.py``.
"""
from __future__ import annotations

import builtins
import numbers

from ..errors import ShapeError, describe_shape
from .reshaping import _index_tensor, _ints, concatenate, expand_dims, reshape
from .core import as_tensor, unchanged
from ..core.op import Op, Spec, normalize_axes, normalize_axis, register_op
from .slicing import GetItem
from .reduction import sum as reduce_sum
from .indexing import take
from .size_checks import check_size

__all__ = ["pad", "tile", "repeat", "flip"]


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
    """One axis of a non-constant pad, from slices taken from the ends, flips and a
    concatenation. The axis must be long enough for the widths: checked now when its size
    is known, else when the graph runs (an unknown size, read then)."""
    size = x.shape[axis]
    if size is None:
        need = builtins.max(before, after, 0 if mode == "reflect" else 1) + \
            (1 if mode == "reflect" else 0)
        x = check_size(x, axis, need, f"pad: mode {mode!r} needs at least {need} entries on "
                       f"axis {axis} for pad widths ({before}, {after}); received {{size}}",
                       at_least=True)
    elif builtins.max(before, after) > size - (mode == "reflect"):
        limit = size - (mode == "reflect")
        raise ShapeError(f"pad: mode {mode!r} needs pad widths of at most {limit} on axis "
                         f"{axis} of size {size}; received ({before}, {after})")

    def part(start, stop):
        return x[(builtins.slice(None),) * axis + (builtins.slice(start, stop),)]

    if mode == "edge":
        left = repeat(part(0, 1), before, axis=axis)
        right = repeat(part(-1, None), after, axis=axis)
    elif mode == "wrap":
        left, right = part(-before, None), part(0, after)
    elif mode == "reflect":
        left, right = flip(part(1, 1 + before), axis), flip(part(-1 - after, -1), axis)
    else:                                   # symmetric
        left, right = flip(part(0, before), axis), flip(part(-after, None), axis)
    pieces = ([left] if before else []) + [x] + ([right] if after else [])
    return concatenate(pieces, axis=axis)


def pad(x, pad_width, mode="constant", constant_values=None):
    """``x`` padded by ``pad_width`` (numpy's forms) with ``mode`` one of "constant" (the
    value ``constant_values``, default 0), "reflect", "symmetric", "edge" or "wrap".

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        pad_width: The padding: an int, a ``(before, after)`` pair, or one pair per axis.
        mode: "constant" (the default), "reflect", "symmetric", "edge" or "wrap".
        constant_values: The value for "constant" mode; None means 0.

    Returns:
        The padded tensor.

    Example:

    >>> lamina.ops.pad(np.array([1, 2]), (1, 2)).numpy()
    array([0, 1, 2, 0, 0])
    """
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
        x, repeats = ctx.inputs[0], ctx.attrs["repeats"]
        interleaved = tuple(v for r, d in zip(repeats, x.shape) for v in (r, d))
        g = reduce_sum(reshape(g, interleaved), axis=tuple(range(0, 2 * x.ndim, 2)))
        return (g,)


def tile(x, repeats):
    """``x`` repeated ``repeats`` times along each axis, as numpy (a short ``repeats`` is
    padded with leading 1s; a long one gives ``x`` leading unit axes).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        repeats: The number of copies along each axis (an int or a sequence).

    Returns:
        The tiled tensor.
    """
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
        x, repeats, axis = ctx.inputs[0], ctx.attrs["repeats"], ctx.attrs["axis"]
        split_shape = x.shape[:axis] + (x.shape[axis], repeats) + x.shape[axis + 1:]
        return (reduce_sum(reshape(g, split_shape), axis=axis + 1),)


def repeat(x, repeats, axis=None):
    """Each element of ``x`` repeated ``repeats`` times along ``axis`` (of the flattened
    ``x`` when None). ``repeats`` is an int, or one count per element along the axis.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        repeats: An int, or one count per element along ``axis``.
        axis: The axis to repeat along; None means the flattened ``x``.

    Returns:
        The repeated tensor.
    """
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
    """``x`` with the order of elements reversed along ``axis`` (all axes when None).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis or axes to reverse; None reverses all.

    Returns:
        A tensor of ``x``'s shape.
    """
    x = as_tensor("flip", x)
    axes = normalize_axes("flip", axis, x.ndim)
    if axes == () or x.ndim == 0:
        return unchanged(x)
    return Flip(x, axis=axes)
