"""Sampling an array at fractional coordinates, as Keras 3's ``ops.image`` does it.

``sample`` is the one sampler: ``map_coordinates`` (any rank), ``affine_transform`` and
``perspective_transform`` (and through them the random affine layers) build coordinates
and call it. Order 0 reads the nearest element, order 1 mixes the ``2**k`` corners of
the ``k`` fractional axes. A corner outside the array is mapped in by ``fill_mode``
("reflect": ``dcba|abcd|dcba``, "mirror": ``dcb|abcd|cba``, "wrap", "nearest") or read
as ``fill_value`` ("constant"), corner by corner, as Keras's padded scipy call does.
Gradients flow to the sampled values (a gather) and to the coordinates (the weights).
"""
from __future__ import annotations

from .reshaping import broadcast_to, reshape
from .compare import equal, greater_equal, less, logical_and
from .core import cast, ones_like
from .indexing import take
from .math import abs as _abs, add, floor_divide, maximum, mod, multiply, subtract
from .reduction import sum as reduce_sum
from .rounding import floor
from .where_clip import clip, where
from .rounding import round as _round

FILL_MODES = ("constant", "nearest", "wrap", "mirror", "reflect")


def _fix(index, size: int, fill_mode: str):
    """``index`` mapped into [0, size) by ``fill_mode``; and (constant) where it was."""
    if fill_mode == "constant":
        valid = logical_and(greater_equal(index, 0), less(index, size))
        return clip(index, 0, size - 1), valid
    if fill_mode == "nearest" or (isinstance(size, int) and size == 1):
        return clip(index, 0, size - 1), None
    if fill_mode == "wrap":
        return mod(index, size), None
    if isinstance(size, int):
        mapped = _mirrored(index, size, fill_mode)
    else:                       # a size read when the graph runs: one row is "nearest"
        mapped = where(equal(size, 1), multiply(index, 0),
                       _mirrored(index, maximum(size, 2), fill_mode))
    return mapped, None


def _mirrored(index, size, fill_mode: str):
    if fill_mode == "mirror":
        return _mirror(index, size)
    # reflect (dcba|abcd|dcba): mirror (dcb|abcd|cba) on the doubled grid, then halve.
    doubled = 2 * size + 1 if isinstance(size, int) else add(multiply(size, 2), 1)
    return floor_divide(subtract(_mirror(add(multiply(index, 2), 1), doubled), 1), 2)


def _sizes(inputs) -> list:
    """The size of each axis of ``inputs``: an int, or an int32 scalar tensor read when
    the graph runs for a size unknown while tracing."""
    sizes = []
    for d, n in enumerate(inputs.shape):
        if n is None:
            line = inputs[tuple(slice(None) if a == d else 0 for a in range(inputs.ndim))]
            n = reduce_sum(ones_like(line, dtype="int32"))
        sizes.append(n)
    return sizes


def _mirror(index, size: int):
    s = size - 1
    return _abs(subtract(mod(add(index, s), 2 * s), s))


def _taps(coord, order: int, half_to_even: bool):
    """(integer index, weight or None) pairs interpolating at ``coord``."""
    if order == 0:
        nearest = _round(coord) if half_to_even else floor(add(coord, 0.5))
        return [(cast(nearest, "int32"), None)]
    lower = floor(coord)
    upper_weight = subtract(coord, lower)
    lower = cast(lower, "int32")
    return [(lower, subtract(1.0, upper_weight)), (add(lower, 1), upper_weight)]


def sample(inputs, coords, order: int = 1, fill_mode: str = "constant", fill_value=0.0,
           half_to_even: bool = False):
    """``inputs`` read at ``coords`` (one tensor per axis, broadcastable together).

    A coordinate given as an int tensor is exact (no interpolation, no fill: the batch
    and channel axes of an image); float ones are interpolated with ``order``."""
    shape = _sizes(inputs)
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = multiply(strides[d + 1], shape[d + 1]) if not isinstance(
            shape[d + 1], int) or not isinstance(strides[d + 1], int) else \
            strides[d + 1] * shape[d + 1]
    per_axis = []
    for d, c in enumerate(coords):
        if c.dtype.startswith("int"):
            per_axis.append([(c, None, None)])
            continue
        taps = []
        for index, weight in _taps(c, order, half_to_even):
            index, valid = _fix(index, shape[d], fill_mode)
            taps.append((index, weight, valid))
        per_axis.append(taps)
    flat = reshape(inputs, (-1,))
    fill = cast(fill_value, inputs.dtype)
    out = None
    combos = [[]]
    for taps in per_axis:
        combos = [prev + [t] for prev in combos for t in taps]
    for combo in combos:
        index = weight = valid = None
        for d, (i, w, v) in enumerate(combo):
            stride = strides[d]
            term = i if isinstance(stride, int) and stride == 1 else multiply(i, stride)
            index = term if index is None else add(index, term)
            if w is not None:
                weight = w if weight is None else multiply(weight, w)
            if v is not None:
                valid = v if valid is None else logical_and(valid, v)
        out_shape = tuple(index.shape)
        value = reshape(take(flat, reshape(index, (-1,)), axis=0), out_shape)
        if valid is not None:
            # ``where`` broadcasts ``valid`` onto ``value`` (of the index's shape), which
            # also holds when that shape has a size only known when the graph runs
            value = where(valid, value, fill)
        if weight is not None:
            value = multiply(value, cast(weight, inputs.dtype))
        out = value if out is None else add(out, value)
    if tuple(out.shape) != tuple(broadcast_shape(coords)):
        out = broadcast_to(out, broadcast_shape(coords))
    return out


def broadcast_shape(tensors) -> tuple:
    rank = max(len(t.shape) for t in tensors)
    dims = [1] * rank
    for t in tensors:
        for k, n in enumerate((1,) * (rank - len(t.shape)) + tuple(t.shape)):
            dims[k] = n if dims[k] == 1 else dims[k]
    return tuple(dims)
