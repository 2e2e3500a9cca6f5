"""Argument checks and spatial-axis arithmetic shared by the padding, cropping and
up-sampling layers (Keras's ``argument_validation`` plus the channels_first bookkeeping).

Every check raises an error that names the layer and the argument and says what was
expected and what was received.
"""
from __future__ import annotations

from ... import backend, ops
from ...errors import ShapeError, describe_shape

_SPATIAL_NAMES = {1: ("steps",), 2: ("height", "width"), 3: ("depth", "height", "width")}


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def standardize_data_format(layer: str, data_format) -> str:
    """None -> the configured image data format; otherwise one of the two layouts."""
    if data_format is None:
        return backend.image_data_format()
    mode = data_format.lower() if isinstance(data_format, str) else data_format
    if mode not in ("channels_last", "channels_first"):
        raise ValueError(f"{layer}: argument 'data_format' must be 'channels_last', "
                         f"'channels_first' or None; received {data_format!r}")
    return mode


def int_tuple(layer: str, arg: str, value, n: int, allow_zero: bool = False) -> tuple:
    """An int or a sequence of ``n`` ints -> a tuple of ``n`` ints (> 0, or >= 0)."""
    items = (value,) * n if _is_int(value) else value
    try:
        items = tuple(items)
    except TypeError:
        items = ()
    minimum = 0 if allow_zero else 1
    if len(items) != n or not all(_is_int(v) and v >= minimum for v in items):
        kind = "non-negative" if allow_zero else "positive"
        raise ValueError(f"{layer}: argument '{arg}' must be a {kind} int or a tuple of "
                         f"{n} {kind} ints; received {value!r}")
    return items


def int_pairs(layer: str, arg: str, value, rank: int) -> tuple:
    """Keras's padding / cropping forms for ``rank`` spatial axes -> one (before, after)
    pair per axis: an int (the same everywhere), ``rank`` ints (symmetric per axis) or
    ``rank`` pairs; every size non-negative."""
    entries = (value,) * rank if _is_int(value) else value
    pairs = ()
    if isinstance(entries, (list, tuple)) and len(entries) == rank:
        pairs = tuple((e, e) if _is_int(e) else tuple(e) if isinstance(e, (list, tuple))
                      else () for e in entries)
    if len(pairs) != rank or not all(len(p) == 2 and all(_is_int(v) and v >= 0 for v in p)
                                     for p in pairs):
        names = ", ".join(f"({a}_before, {a}_after)" for a in _SPATIAL_NAMES[rank])
        raise ValueError(f"{layer}: argument '{arg}' must be a non-negative int, a tuple of "
                         f"{rank} such ints or a tuple of {rank} pairs ({names}); received "
                         f"{value!r}")
    return pairs


def spatial_axes(rank: int, data_format: str) -> tuple:
    """The axes of the spatial dimensions of a (batch, ..., channels) tensor."""
    first = 2 if data_format == "channels_first" else 1
    return tuple(range(first, first + rank))


def layout(rank: int, data_format: str) -> str:
    """The meaning of the input's axes, for error messages."""
    spatial = ", ".join(_SPATIAL_NAMES[rank])
    if data_format == "channels_first":
        return f"(batch, channels, {spatial})"
    return f"(batch, {spatial}, channels)"


def spatial_name(rank: int, index: int) -> str:
    return _SPATIAL_NAMES[rank][index]


def pad(inputs, pairs, data_format: str):
    """``inputs`` with zeros added on each spatial axis: one (before, after) per axis."""
    widths = [(0, 0)] * len(inputs.shape)
    for axis, pair in zip(spatial_axes(len(pairs), data_format), pairs):
        widths[axis] = pair
    return ops.pad(inputs, widths)


def crop(layer: str, inputs, pairs, data_format: str):
    """``inputs`` with (before, after) values removed on each spatial axis; a ShapeError
    naming the layer when a cropping would leave nothing."""
    rank = len(pairs)
    key = [slice(None)] * len(inputs.shape)
    for i, (axis, (before, after)) in enumerate(zip(spatial_axes(rank, data_format), pairs)):
        size = inputs.shape[axis]
        if size is not None and before + after >= size:
            # Keras's wording follows: Cropping1D's, or that of Cropping2D and 3D.
            keras = ("`cropping` parameter of `Cropping1D` layer must be smaller than the "
                     "input length" if rank == 1 else
                     "Values in `cropping` argument should be smaller than the corresponding "
                     "spatial dimension of the input.")
            raise ShapeError(f"{layer}: argument 'cropping' {_cropping_repr(pairs)} removes "
                             f"{before + after} of the {size} values of axis {axis} "
                             f"({spatial_name(rank, i)}); it must leave at least one. "
                             f"Received input shape {describe_shape(inputs.shape)} ({keras})")
        key[axis] = slice(before, -after if after else None)
    return ops.getitem(inputs, tuple(key))


def resized_shape(input_shape, pairs, data_format: str, sign: int) -> tuple:
    """The shape after padding (sign +1) or cropping (sign -1) by ``pairs``."""
    shape = list(input_shape)
    for axis, pair in zip(spatial_axes(len(pairs), data_format), pairs):
        if shape[axis] is not None:
            shape[axis] += sign * sum(pair)
    return tuple(shape)


def _cropping_repr(pairs) -> str:
    return str(pairs[0]) if len(pairs) == 1 else str(tuple(pairs))
