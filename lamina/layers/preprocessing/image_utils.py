"""Image sampling shared by the image preprocessing layers, written with ``lamina.ops``.

Images here are batched and channels-last, ``(batch, height, width, channels)``, in a float
dtype; the layers convert to and from that layout (``to_nhwc`` / ``from_nhwc``).

- ``resize``: separable resampling with half-pixel centers (Keras 3 / TF2 / jax without
  antialiasing): output pixel ``i`` samples input coordinate ``(i + 0.5) * in / out - 0.5``,
  clamped to the image ("bilinear"), or pixel ``floor((i + 0.5) * in / out)`` ("nearest").
- ``affine_transform``: each output pixel ``(y, x)`` samples the input at
  ``x' = a0 x + a1 y + a2``, ``y' = b0 x + b1 y + b2`` (Keras's 8-number transform without
  the projective terms), with the fill modes of Keras's ``map_coordinates``: the corner
  indices of the sample are mapped into the image ("reflect": ``dcba|abcd|dcba``, "wrap",
  "nearest") or read as ``fill_value`` ("constant").
"""
from __future__ import annotations

import numbers

from ... import ops
from ...ops.image import batch_and_channel
from ...ops.image_resize import resize_axes
from ...ops.image_sampling import sample
from ..convolutional.conv_utils import from_channels_last, to_channels_last

FILL_MODES = ("reflect", "wrap", "constant", "nearest")
INTERPOLATIONS = ("bilinear", "nearest")


# --------------------------------------------------------------------------- arguments
def check_choice(layer: str, arg: str, value, choices) -> str:
    if value not in choices:
        names = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{layer}: argument '{arg}' must be one of {names}; received "
                         f"{value!r}")
    return value


def check_size(layer: str, arg: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
        raise ValueError(f"{layer}: argument '{arg}' must be a positive int; received "
                         f"{value!r}")
    return int(value)


def check_number(layer: str, arg: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{layer}: argument '{arg}' must be a number; received {value!r}")
    return float(value)


def factor_range(layer: str, arg: str, factor, low: float = -1.0, high: float = 1.0,
                 single=None) -> tuple:
    """A number ``f`` (``single(f)`` or ``(-|f|, |f|)``) or a pair, each in [low, high],
    as the sorted pair ``(lower, upper)``."""
    expected = (f"a number or a pair of numbers in [{low:g}, {high:g}]")
    is_number = isinstance(factor, numbers.Real) and not isinstance(factor, bool)
    pair = factor if isinstance(factor, (list, tuple)) else None
    if pair is not None and len(pair) == 2 and all(
            isinstance(v, numbers.Real) and not isinstance(v, bool) for v in pair):
        values = [float(v) for v in pair]
    elif is_number:
        values = [float(factor)]
    else:
        raise ValueError(_factor_message(layer, arg, expected, factor))
    if any(not low <= v <= high for v in values):
        raise ValueError(_factor_message(layer, arg, expected, factor))
    if pair is None:
        f = abs(values[0])
        return single(f) if single is not None else (-f, f)
    return tuple(sorted(values))


def _factor_message(layer, arg, expected, factor):
    # Keras's wording in parentheses, so code matching either message finds it
    return (f"{layer}: argument '{arg}' must be {expected}; received {factor!r} (The "
            f"`{arg}` argument should be a number or a list of two numbers in that range.)")


def plain_factor(factor):
    """A factor as a config stores it: pairs as lists (what a JSON round trip gives)."""
    return list(factor) if isinstance(factor, (list, tuple)) else factor


def check_value_range(layer: str, value_range):
    """A pair of numbers ``(low, high)``, returned as given (a tuple)."""
    if not isinstance(value_range, (list, tuple)) or len(value_range) != 2 or any(
            isinstance(v, bool) or not isinstance(v, numbers.Real) for v in value_range):
        raise ValueError(f"{layer}: argument 'value_range' must be a pair of numbers "
                         f"(low, high); received {value_range!r} (The `value_range` argument "
                         f"should be a list of two numbers.)")
    return tuple(value_range)


# --------------------------------------------------------------------------- layout
def to_nhwc(x, data_format: str, dtype: str):
    """``x`` (rank 3 or 4) as a batched channels-last ``dtype`` tensor."""
    if x.dtype != dtype:
        x = ops.cast(x, dtype)
    if len(x.shape) == 3:
        x = ops.expand_dims(x, 0)
    return to_channels_last(x, data_format)


def from_nhwc(x, data_format: str, rank: int):
    x = from_channels_last(x, data_format)
    return ops.squeeze(x, 0) if rank == 3 else x


def hw_axes(data_format: str, rank: int) -> tuple:
    """The (height, width) axes of an input of ``rank`` in ``data_format``."""
    return (rank - 2, rank - 1) if data_format == "channels_first" else (rank - 3, rank - 2)


# --------------------------------------------------------------------------- resizing
def resize(images, height: int, width: int, interpolation: str = "bilinear"):
    """Resize NHWC ``images`` to ``(height, width)`` with half-pixel centers (the kernels
    of ``lamina.ops.image.resize``, without antialiasing)."""
    return resize_axes(images, (1, 2), (height, width), interpolation, False)


def aspect_crop_box(height: int, width: int, target_h: int, target_w: int) -> tuple:
    """Keras's largest centered window of the target aspect ratio: (top, left, h, w)."""
    crop_h = max(min(height, int(float(width * target_h) / target_w)), 1)
    crop_w = max(min(width, int(float(height * target_w) / target_h)), 1)
    return int((height - crop_h) / 2), int((width - crop_w) / 2), crop_h, crop_w


def crop(images, top: int, left: int, height: int, width: int):
    """The NHWC window at static (top, left) of static size."""
    if (top, left, height, width) == (0, 0, *images.shape[1:3]):
        return images
    return images[:, top:top + height, left:left + width, :]


def smart_resize(images, height: int, width: int, interpolation: str = "bilinear"):
    """Crop the largest centered window of the target aspect ratio, then resize."""
    box = aspect_crop_box(images.shape[1], images.shape[2], height, width)
    return resize(crop(images, *box), height, width, interpolation)


# --------------------------------------------------------------------------- affine
def affine_transform(images, a0, a1, a2, b0, b1, b2, interpolation="bilinear",
                     fill_mode="reflect", fill_value=0.0):
    """Sample NHWC ``images`` at the affine map of each output pixel (see the module
    docstring); the six coefficients are numbers or tensors of shape (batch, 1, 1).
    "nearest" rounds half to even (jax's ``map_coordinates``, what Keras's layers use)."""
    batch, height, width, channels = images.shape
    ys = ops.reshape(ops.arange(height, dtype="float32"), (1, height, 1))
    xs = ops.reshape(ops.arange(width, dtype="float32"), (1, 1, width))
    x_in = ops.add(ops.add(ops.multiply(a0, xs), ops.multiply(a1, ys)), a2)
    y_in = ops.add(ops.add(ops.multiply(b0, xs), ops.multiply(b1, ys)), b2)
    shape = (batch, height, width, 1)
    x_in = ops.broadcast_to(ops.expand_dims(x_in, -1), shape)
    y_in = ops.broadcast_to(ops.expand_dims(y_in, -1), shape)
    coords = batch_and_channel(batch, channels, y_in, x_in)
    return sample(images, coords, 0 if interpolation == "nearest" else 1, fill_mode,
                  fill_value, half_to_even=True)
