"""Argument checks and shape arithmetic shared by the convolution and pooling layers.

Every check raises a ValueError that names the layer and the argument and says what was
expected and what was received. The shape formulas are Keras's (TensorFlow's): 'same'
gives ``ceil(size / stride)`` outputs, 'valid' and 'causal' pad nothing after the input.
"""
from __future__ import annotations

from ... import backend, ops
from ...errors import ShapeError, describe_shape

_SPATIAL_NAMES = {1: ("steps",), 2: ("height", "width"),
                  3: ("depth", "height", "width")}


def standardize_tuple(layer: str, arg: str, value, rank: int, allow_zero: bool = False):
    """An int or a sequence of ``rank`` ints -> a tuple of ``rank`` ints (> 0, or >= 0)."""
    items = (value,) * rank if isinstance(value, int) and not isinstance(value, bool) \
        else value
    try:
        items = tuple(items)
    except TypeError:
        items = ()
    minimum = 0 if allow_zero else 1
    if len(items) != rank or not all(isinstance(v, int) and not isinstance(v, bool)
                                     and v >= minimum for v in items):
        kind = "non-negative" if allow_zero else "positive"
        expected = (f"a {kind} int (or a tuple of one)" if rank == 1 else
                    f"an int or a tuple of {rank} ints, all {kind}")
        # Keras's wording follows, so a test written against either message matches.
        keras = f"The `{arg}` argument must be a tuple of {rank} integers. Received {arg}={value}"
        bad = {v for v in items if isinstance(v, int) and v < minimum}
        if len(items) == rank and bad:
            keras += (f", including values {bad} that do not satisfy "
                      f"`value {'>=' if allow_zero else '>'} 0`")
        raise ValueError(f"{layer}: argument '{arg}' must be {expected}; received {value!r} "
                         f"({keras})")
    return items


def positive_int(layer: str, arg: str, value, keras_phrase: str | None = None) -> int:
    """``value`` if it is an int > 0, else a ValueError naming the layer and ``arg``, with
    Keras's wording (``keras_phrase``, or Keras's usual one) after Lamina's."""
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        keras = keras_phrase or (f"Invalid value for argument `{arg}`. Expected a strictly "
                                 f"positive value. Received {arg}={value!r}.")
        raise ValueError(f"{layer}: argument '{arg}' must be a positive int; "
                         f"received {value!r} ({keras})")
    return value


def standardize_padding(layer: str, padding, allow_causal: bool = False) -> str:
    allowed = ("valid", "same", "causal") if allow_causal else ("valid", "same")
    mode = padding.lower() if isinstance(padding, str) else padding
    if mode not in allowed:
        names = ", ".join(repr(a) for a in allowed[:-1]) + f" or {allowed[-1]!r}"
        hint = ("; 'causal' padding exists for 1-D layers only (Conv1D)"
                if mode == "causal" else "")
        raise ValueError(f"{layer}: argument 'padding' must be {names}; received "
                         f"{padding!r}{hint}")
    return mode


def standardize_data_format(layer: str, data_format) -> str:
    if data_format is None:
        return backend.image_data_format()
    mode = data_format.lower() if isinstance(data_format, str) else data_format
    if mode not in ("channels_last", "channels_first"):
        raise ValueError(f"{layer}: argument 'data_format' must be 'channels_last', "
                         f"'channels_first' or None; received {data_format!r}")
    return mode


def layout(rank: int, data_format: str) -> str:
    """The meaning of the input's axes, for error messages."""
    spatial = ", ".join(_SPATIAL_NAMES[rank])
    if data_format == "channels_first":
        return f"(batch, channels, {spatial})"
    return f"(batch, {spatial}, channels)"


def channel_axis(data_format: str) -> int:
    return 1 if data_format == "channels_first" else -1


def to_channels_last(x, data_format: str):
    """Lamina's kernels are channels-last; a channels-first input is transposed there."""
    if data_format == "channels_last":
        return x
    n = len(x.shape)
    return ops.transpose(x, (0, *range(2, n), 1))


def from_channels_last(x, data_format: str):
    if data_format == "channels_last":
        return x
    n = len(x.shape)
    return ops.transpose(x, (0, n - 1, *range(1, n - 1)))


def spatial_dims(input_shape, data_format: str) -> tuple:
    shape = tuple(input_shape)
    return shape[2:] if data_format == "channels_first" else shape[1:-1]


def with_spatial(batch, spatial, channels, data_format: str) -> tuple:
    if data_format == "channels_first":
        return (batch, channels, *spatial)
    return (batch, *spatial, channels)


def conv_output_length(size, kernel: int, stride: int, dilation: int, padding: str):
    """Keras's output length of a convolution or pooling window along one axis."""
    if size is None:
        return None
    if padding == "same":
        return -(-size // stride)
    span = (kernel - 1) * dilation + 1
    if padding == "causal":
        size += span - 1
    return (size - span) // stride + 1


def deconv_output_length(size, kernel: int, stride: int, dilation: int, padding: str,
                         output_padding):
    """Keras's output length of a transposed convolution along one axis."""
    if size is None:
        return None
    span = (kernel - 1) * dilation + 1
    if output_padding is None:
        if padding == "same":
            return size * stride
        return size * stride + max(span - stride, 0)
    pad = span // 2 if padding == "same" else 0
    return (size - 1) * stride + span - 2 * pad + output_padding


def check_window_fits(layer: str, what: str, input_shape, data_format: str, window,
                      out_sizes, padding: str) -> None:
    """A ShapeError naming the layer when a window is larger than the (padded) input."""
    if any(o is not None and o < 1 for o in out_sizes):
        raise ShapeError(f"{layer}: the {what} {describe_shape(window)} is larger than the "
                         f"input's spatial size "
                         f"{describe_shape(spatial_dims(input_shape, data_format))} with "
                         f"padding {padding!r}; received input shape "
                         f"{describe_shape(input_shape)} (Computed output size would be zero "
                         f"or negative.)")
