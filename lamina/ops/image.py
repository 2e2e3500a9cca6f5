"""Keras 3's ``keras.ops.image``: image ops on one image (rank 3) or a batch (rank 4) in
``data_format`` (default ``keras.config.image_data_format()``).

The work happens on batched channels-last tensors (image_sampling, image_resize,
image_color, image_filters); this module checks arguments as Keras does, moves the
layout and casts the results back to the input dtype. Everything is a composition of
differentiable Lamina ops, so gradients reach the images (and sampling coordinates).
"""
from __future__ import annotations

import numbers

from .. import backend as _backend
from ..errors import ArgumentTypeError, DTypeArgumentError, ShapeError, describe_shape
from . import image_color, image_filters
from .reshaping import expand_dims, moveaxis, reshape, squeeze, stack, transpose
from .core import arange, as_tensor, cast, convert_to_tensor, ones_like
from .cumulative import cumsum
from .image_resize import METHODS, KERNELS, resample_axis, resize_axes
from .image_resize_dynamic import ResizeImages
from .image_sampling import FILL_MODES, sample
from .conversion import saturate_cast
from .math import abs as abs_, add, divide, multiply, sign, subtract
from .rounding import floor, round as round_
from .replicate import pad
from .solves import solve
from .refused import is_symbolic, refused

__all__ = ["affine_transform", "crop_images", "elastic_transform", "extract_patches",
           "extract_patches_3d", "gaussian_blur", "hsv_to_rgb", "map_coordinates",
           "pad_images", "perspective_transform", "resize", "rgb_to_grayscale", "rgb_to_hsv",
           "scale_and_translate", "sobel_edges", "ssim"]

INTERPOLATIONS = {"nearest": 0, "bilinear": 1}
SCALE_METHODS = {"linear": "bilinear", "bilinear": "bilinear", "trilinear": "bilinear",
                 "triangle": "bilinear", "cubic": "bicubic", "bicubic": "bicubic",
                 "tricubic": "bicubic", "lanczos3": "lanczos3", "lanczos5": "lanczos5"}


# --------------------------------------------------------------------------- plumbing
def _data_format(op, data_format):
    if data_format is None:
        return _backend.image_data_format()
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"{op}: argument 'data_format' must be 'channels_last', "
                         f"'channels_first' or None; received {data_format!r}")
    return data_format


def _images(op, images, arg="images"):
    images = as_tensor(op, images)
    if images.ndim not in (3, 4):
        raise ShapeError(f"{op}: Invalid images rank: expected rank 3 (single image) or "
                         f"rank 4 (batch of images) for argument '{arg}'; received shape "
                         f"{describe_shape(images.shape)}")
    return images


def _choice(op, arg, value, choices):
    if value not in choices:
        raise ValueError(f"{op}: argument '{arg}' must be one of "
                         f"{', '.join(repr(c) for c in choices)}; received {value!r}")
    return value


def _compute_dtype(x):
    """Keras's ``result_type(dtype, "float32")``: float64 stays, the rest compute in float32."""
    return "float64" if x.dtype == "float64" else "float32"


def _to_nhwc(images, data_format, dtype=None):
    x = images if dtype is None or images.dtype == dtype else cast(images, dtype)
    if x.ndim == 3:
        x = expand_dims(x, 0)
    return moveaxis(x, 1, -1) if data_format == "channels_first" else x


def _from_nhwc(x, data_format, rank, dtype=None):
    if data_format == "channels_first":
        x = moveaxis(x, -1, 1)
    if rank == 3:
        x = squeeze(x, 0)
    return x if dtype is None or x.dtype == dtype else cast(x, dtype)


def _channel_axis(data_format):
    return -1 if data_format == "channels_last" else -3


def _require_float(op, images):
    if not _is_float(images.dtype):
        raise DTypeArgumentError(f"{op}: Invalid images dtype: expected float dtype. "
                                 f"Argument 'images' must have a float dtype; received "
                                 f"{images.dtype}")


def _require_rgb(op, images, data_format):
    channels = images.shape[_channel_axis(data_format)]
    if channels is not None and channels != 3:
        raise ShapeError(f"{op}: Input images must have 3 channels, but received images "
                         f"with {channels} channels. (argument 'images', shape "
                         f"{describe_shape(images.shape)}, {data_format})")


def _hw(images, data_format):
    return ((images.shape[-3], images.shape[-2]) if data_format == "channels_last"
            else (images.shape[-2], images.shape[-1]))


# --------------------------------------------------------------------------- colour
def rgb_to_grayscale(images, data_format=None):
    """ITU-R 601 luma ``0.2989 r + 0.587 g + 0.114 b`` on the channel axis (kept, size 1).

    Args:
        images: A 3-D (height, width, channels) image or a 4-D batch of images, laid out as
            ``data_format`` says.
        data_format: Either "channels_last" (channels on the last axis) or "channels_first";
            None means ``keras.config.image_data_format()``.

    Returns:
        The grayscale images: ``images``' shape with 1 channel.

    Example:

    >>> img = np.ones((1, 1, 3), 'float32')
    >>> lamina.ops.image.rgb_to_grayscale(img).shape
    (1, 1, 1)
    """
    op = "rgb_to_grayscale"
    data_format, images = _data_format(op, data_format), _images(op, images)
    axis = _channel_axis(data_format)
    channels = images.shape[axis]
    if channels not in (1, 3):
        raise ShapeError(f"{op}: Invalid channel size: expected 3 (RGB) or 1 (Grayscale). "
                         f"The channel axis of 'images' must have size 3 or 1; received "
                         f"shape {describe_shape(images.shape)}")
    if channels == 1:
        return images
    dtype = images.dtype
    x = images if dtype.startswith("float") else cast(images, "float32")
    return cast(image_color.grayscale(x, axis), dtype)


def rgb_to_hsv(images, data_format=None):
    """Hue, saturation and value in [0, 1] (dm_pix's formulas); float images only.

    Args:
        images: RGB images (float), 3-D or a 4-D batch, laid out as ``data_format`` says.
        data_format: Either "channels_last" (channels on the last axis) or "channels_first";
            None means ``keras.config.image_data_format()``.

    Returns:
        HSV images of the same shape and dtype, each channel in [0, 1].
    """
    op = "rgb_to_hsv"
    data_format, images = _data_format(op, data_format), _images(op, images)
    _require_float(op, images)
    _require_rgb(op, images, data_format)
    eps = {"float16": 2 ** -10, "bfloat16": 2 ** -7, "float32": 2 ** -23}.get(
        images.dtype, 2 ** -52)
    return image_color.rgb_to_hsv(images, _channel_axis(data_format) % images.ndim, eps)


def hsv_to_rgb(images, data_format=None):
    """The inverse of ``rgb_to_hsv``; float images only.

    Args:
        images: HSV images (float, values in [0, 1]), 3-D or a 4-D batch, laid out as
            ``data_format`` says.
        data_format: Either "channels_last" (channels on the last axis) or "channels_first";
            None means ``keras.config.image_data_format()``.

    Returns:
        RGB images of the same shape and dtype.
    """
    op = "hsv_to_rgb"
    data_format, images = _data_format(op, data_format), _images(op, images)
    _require_float(op, images)
    _require_rgb(op, images, data_format)
    return image_color.hsv_to_rgb(images, _channel_axis(data_format) % images.ndim)


# --------------------------------------------------------------------------- resizing
def _size_pair(op, size):
    if not isinstance(size, (list, tuple)) or len(size) != 2 or not all(
            isinstance(s, numbers.Integral) and not isinstance(s, bool) for s in size):
        raise ValueError(f"{op}: argument 'size' must be a tuple of two positive ints "
                         f"(height, width); received {size!r}")
    if size[0] <= 0 or size[1] <= 0:
        raise ValueError(f"{op}: `size` must have positive height and width: argument "
                         f"'size' must be a tuple of two positive ints (height, width); "
                         f"received {size!r}")
    return int(size[0]), int(size[1])


def resize(images, size, interpolation="bilinear", antialias=False,
           crop_to_aspect_ratio=False, pad_to_aspect_ratio=False, fill_mode="constant",
           fill_value=0.0, data_format=None):
    """Resize to ``size`` (height, width), optionally cropping or padding (with
    ``fill_value``) to the target aspect ratio first.

    Args:
        images: A 3-D (height, width, channels) image or a 4-D batch of images, laid out as
            ``data_format`` says.
        size: The output (height, width).
        interpolation: "bilinear" (the default), "nearest", "bicubic", "lanczos3" or
            "lanczos5".
        antialias: Whether to low-pass filter when downsampling. Defaults to False.
        crop_to_aspect_ratio: Whether to crop the images (centred) to the aspect ratio of
            ``size`` first. Defaults to False.
        pad_to_aspect_ratio: Whether to pad the images (centred, with ``fill_value``) to the
            aspect ratio of ``size`` first. Defaults to False.
        fill_mode: Must be "constant" (the only mode Keras supports).
        fill_value: The value of the padding when ``pad_to_aspect_ratio``. Defaults to 0.0.
        data_format: Either "channels_last" (channels on the last axis) or "channels_first";
            None means ``keras.config.image_data_format()``.

    Returns:
        The resized images: height and width from ``size``, batch and channels unchanged.

    Raises:
        ValueError: For an unknown ``interpolation``, a ``fill_mode`` other than "constant",
            or both aspect-ratio options.

    Example:

    >>> lamina.ops.image.resize(np.zeros((4, 4, 3)), (2, 8)).shape
    (2, 8, 3)
    """
    op = "resize"
    data_format, images = _data_format(op, data_format), _images(op, images)
    _choice(op, "interpolation", interpolation, METHODS)
    if fill_mode != "constant":
        raise ValueError(f"{op}: argument 'fill_mode' must be 'constant' (the only mode "
                         f"Keras supports); received {fill_mode!r}")
    if pad_to_aspect_ratio and crop_to_aspect_ratio:
        raise ValueError(f"{op}: only one of 'pad_to_aspect_ratio' and "
                         f"'crop_to_aspect_ratio' can be True")
    height, width = _size_pair(op, size)
    x = _to_nhwc(images, data_format)
    h, w = x.shape[1], x.shape[2]
    if h is None or w is None:         # sizes known when run: one op builds the weights
        return _from_nhwc(_resize_unknown(x, height, width, interpolation, antialias,
                                          crop_to_aspect_ratio, pad_to_aspect_ratio,
                                          fill_value), data_format, images.ndim)
    if crop_to_aspect_ratio:
        crop_h = max(min(h, int(float(w * height) / width)), 1)
        crop_w = max(min(w, int(float(h * width) / height)), 1)
        top, left = int(float(h - crop_h) / 2), int(float(w - crop_w) / 2)
        x = x[:, top:top + crop_h, left:left + crop_w, :]
    elif pad_to_aspect_ratio:
        pad_h = max(h, int(float(w * height) / width))
        pad_w = max(w, int(float(h * width) / height))
        top, left = int(float(pad_h - h) / 2), int(float(pad_w - w) / 2)
        if top > 0:
            x = pad(x, [[0, 0], [top, top], [0, 0], [0, 0]], constant_values=fill_value)
        elif left > 0:
            x = pad(x, [[0, 0], [0, 0], [left, left], [0, 0]], constant_values=fill_value)
    dtype = x.dtype
    if dtype == "bool" and interpolation != "nearest":
        raise DTypeArgumentError(f"{op}: interpolation {interpolation!r} needs numeric "
                                 f"images; received dtype bool")
    exact = interpolation == "nearest" or _is_float(dtype)
    if not exact:               # jax.image.resize: float32 math, rounded and clamped back
        x = cast(x, "float32")
    x = resize_axes(x, (1, 2), (height, width), interpolation, bool(antialias))
    if not exact:
        x = saturate_cast(round_(x), dtype)
    return _from_nhwc(x, data_format, images.ndim)


def _resize_unknown(x, height, width, interpolation, antialias, crop, pad_, fill_value):
    dtype = x.dtype
    if dtype == "bool" and interpolation != "nearest":
        raise DTypeArgumentError(f"resize: interpolation {interpolation!r} needs numeric "
                                 f"images; received dtype bool")
    exact = interpolation == "nearest" or _is_float(dtype)
    if pad_:             # the padding holds fill_value as the images' dtype stores it
        fill_value = cast(convert_to_tensor(fill_value), dtype).numpy().item()
    y = ResizeImages(x if exact else cast(x, "float32"), height=height, width=width,
                     method=interpolation, antialias=bool(antialias), crop=bool(crop),
                     pad=bool(pad_), fill_value=float(fill_value))
    return y if exact else saturate_cast(round_(y), dtype)


def _is_float(dtype):
    return dtype.startswith("float") or dtype == "bfloat16"


def scale_and_translate(images, output_shape, scale, translation, spatial_dims, method,
                        antialias=True):
    """Each axis ``spatial_dims[i]`` resampled to ``output_shape`` with output ``o``
    sampling ``(o + 0.5 - translation[i]) / scale[i] - 0.5`` (jax.image's rule).

    Args:
        images: The tensor to resample (any rank).
        output_shape: The shape of the result (one size per axis of ``images``).
        scale: One scale factor per axis in ``spatial_dims``.
        translation: One translation per axis in ``spatial_dims``.
        spatial_dims: The axes to resample.
        method: The kernel: "linear" (or "bilinear", "trilinear", "triangle"), "cubic" (or
            "bicubic", "tricubic"), "lanczos3" or "lanczos5".
        antialias: Whether to widen the kernel when downsampling. Defaults to True.

    Returns:
        The resampled tensor, of shape ``output_shape``.
    """
    op = "scale_and_translate"
    images = as_tensor(op, images)
    kernel = SCALE_METHODS.get(_choice(op, "method", method, tuple(SCALE_METHODS)))
    if is_symbolic(scale, translation):     # Keras's symbolic rule: output_shape
        return refused(ArgumentTypeError, f"{op}: arguments 'scale' and 'translation' must "
                       f"be known when the resampling is built (numbers or concrete tensors: "
                       f"they set its weights); received scale={scale!r}, "
                       f"translation={translation!r}", (images, scale, translation),
                       (tuple(output_shape), images.dtype))
    scale = [float(s) for s in convert_to_tensor(scale).numpy().reshape(-1)]
    translation = [float(t) for t in convert_to_tensor(translation).numpy().reshape(-1)]
    x = images
    for i, d in enumerate(spatial_dims):
        d = d % images.ndim
        x = resample_axis(x, d, int(output_shape[d]), scale[i], translation[i], kernel,
                          bool(antialias))
    return x


# --------------------------------------------------------------------------- sampling
def map_coordinates(inputs, coordinates, order, fill_mode="constant", fill_value=0):
    """``inputs`` read at ``coordinates`` (shape ``(inputs.ndim, ...)``), with linear
    (``order=1``) or nearest (``order=0``) interpolation.

    Args:
        inputs: The tensor to read from (any rank).
        coordinates: The points to read: shape ``(inputs.ndim, *output_shape)``, one row of
            coordinates per axis of ``inputs``.
        order: The interpolation order: 0 (nearest) or 1 (linear).
        fill_mode: How points outside ``inputs`` are filled: "constant" (the default),
            "nearest", "reflect", "mirror" or "wrap".
        fill_value: The value used for points outside the input when ``fill_mode`` is
            "constant".

    Returns:
        The values read, of shape ``coordinates.shape[1:]``.

    Raises:
        ShapeError: If ``coordinates`` does not have ``inputs.ndim`` rows.
    """
    op = "map_coordinates"
    inputs, coordinates = as_tensor(op, inputs), as_tensor(op, coordinates)
    if coordinates.ndim < 2:
        raise ShapeError(f"{op}: Invalid coordinates rank: expected at least rank 2 for "
                         f"argument 'coordinates'; received shape "
                         f"{describe_shape(coordinates.shape)}")
    if coordinates.shape[0] != inputs.ndim:
        raise ShapeError(f"{op}: the first dim of 'coordinates' ({coordinates.shape[0]}) "
                         f"must be the same as the rank of `inputs` ({inputs.ndim})")
    _choice(op, "fill_mode", fill_mode, FILL_MODES)
    _choice(op, "order", order, (0, 1))
    dtype = inputs.dtype if inputs.dtype.startswith("float") else "float32"
    coordinates = cast(coordinates, dtype)
    x = inputs if inputs.dtype == dtype else cast(inputs, dtype)
    out = sample(x, [coordinates[d] for d in range(inputs.ndim)], order, fill_mode,
                 fill_value)
    if out.dtype == inputs.dtype:
        return out
    if order and inputs.dtype != "bool":        # scipy/jax round half away from zero
        out = multiply(sign(out), floor(add(abs_(out), 0.5)))
    return cast(out, inputs.dtype)


def _transforms(op, transform, batch, dtype):
    transform = cast(as_tensor(op, transform), dtype)
    if transform.ndim not in (1, 2):
        raise ShapeError(f"{op}: Invalid transform rank: expected rank 1 (single transform) "
                         f"or rank 2 (batch of transforms): argument 'transform' must have "
                         f"shape (8,) or (batch, 8); received shape "
                         f"{describe_shape(transform.shape)}")
    if transform.shape[-1] != 8:
        raise ShapeError(f"{op}: argument 'transform' must have shape (8,) or (batch, 8); "
                         f"received shape {describe_shape(transform.shape)}")
    if transform.ndim == 1:
        transform = expand_dims(transform, 0)
    return [reshape(transform[:, k], (-1, 1, 1, 1)) for k in range(8)]


def affine_transform(images, transform, interpolation="bilinear", fill_mode="constant",
                     fill_value=0, data_format=None):
    """Output pixel (y, x) of channel c samples ``x' = a0 x + a1 y + a2`` and
    ``y' = b0 x + b1 y + b2`` (plus ``c1 c`` and ``c0 c``: Keras's numpy/jax backends add
    the last two numbers times the channel index and never divide by them).

    Args:
        images: A 3-D (height, width, channels) image or a 4-D batch of images, laid out as
            ``data_format`` says.
        transform: One transform ``[a0, a1, a2, b0, b1, b2, c0, c1]`` of 8 numbers, or a
            (batch, 8) tensor, one per image; it maps output points to input points.
        interpolation: "bilinear" (the default) or "nearest".
        fill_mode: How points outside the input are filled: "constant" (with
            ``fill_value``), "nearest", "reflect", "mirror" or "wrap".
        fill_value: The value used for points outside the input when ``fill_mode`` is
            "constant".
        data_format: Either "channels_last" (channels on the last axis) or "channels_first";
            None means ``keras.config.image_data_format()``.

    Returns:
        The transformed images, of ``images``' shape and dtype.
    """
    op = "affine_transform"
    data_format, images = _data_format(op, data_format), _images(op, images)
    order = INTERPOLATIONS[_choice(op, "interpolation", interpolation, tuple(INTERPOLATIONS))]
    _choice(op, "fill_mode", fill_mode, FILL_MODES)
    dtype = _compute_dtype(images)
    x = _to_nhwc(images, data_format, dtype)
    batch, height, width, channels = x.shape
    a0, a1, a2, b0, b1, b2, c0, c1 = _transforms(op, transform, batch, dtype)
    ys = reshape(arange(height, dtype=dtype), (1, height, 1, 1))
    xs = reshape(arange(width, dtype=dtype), (1, 1, width, 1))
    cs = reshape(arange(channels, dtype=dtype), (1, 1, 1, channels))
    x_in = add(add(add(multiply(a0, xs), multiply(a1, ys)), multiply(c1, cs)), a2)
    y_in = add(add(add(multiply(b0, xs), multiply(b1, ys)), multiply(c0, cs)), b2)
    out = sample(x, batch_and_channel(batch, channels, y_in, x_in, x), order, fill_mode,
                 fill_value)
    return _from_nhwc(out, data_format, images.ndim, images.dtype)


def batch_and_channel(batch, channels, y_in, x_in, images=None):
    """The four coordinate tensors of an NHWC sample at (y_in, x_in) per image/channel.

    ``batch`` None (a traced batch of unknown size) reads the image index off the NHWC
    ``images`` when the op runs.
    """
    if batch is None:
        if images is None:
            raise ShapeError("batch_and_channel: an unknown batch size needs the 'images' "
                             "whose first axis gives it; received images=None")
        ones = ones_like(images[:, 0, 0, 0], dtype="int32")
        index = reshape(subtract(cumsum(ones, axis=0), 1), (-1, 1, 1, 1))
    else:
        index = reshape(arange(batch, dtype="int32"), (batch, 1, 1, 1))
    return [index, y_in, x_in, reshape(arange(channels, dtype="int32"), (1, 1, 1, channels))]


def _homography(start, end):
    """Keras's 8 projective coefficients mapping ``end`` points onto ``start`` points."""
    zero = multiply(end[:, 0, 0], 0.0)
    one = add(zero, 1.0)
    rows, targets = [], []
    for i in range(4):
        ex, ey, sx, sy = end[:, i, 0], end[:, i, 1], start[:, i, 0], start[:, i, 1]
        rows.append(stack([ex, ey, one, zero, zero, zero, -sx * ex, -sx * ey], axis=-1))
        rows.append(stack([zero, zero, zero, ex, ey, one, -sy * ex, -sy * ey], axis=-1))
        targets += [sx, sy]
    return solve(stack(rows, axis=1), expand_dims(stack(targets, axis=-1), -1))[..., 0]


def perspective_transform(images, start_points, end_points, interpolation="bilinear",
                          fill_value=0, data_format=None):
    """Warp so that ``start_points`` (4 corners, (x, y)) land on ``end_points``; pixels
    from outside read ``fill_value``.

    Args:
        images: A 3-D (height, width, channels) image or a 4-D batch of images, laid out as
            ``data_format`` says.
        start_points: The 4 source corners as (x, y): shape (4, 2) or (batch, 4, 2).
        end_points: The 4 corners they map to, of ``start_points``' shape.
        interpolation: "bilinear" (the default) or "nearest".
        fill_value: The value read for points outside the image. Defaults to 0.
        data_format: Either "channels_last" (channels on the last axis) or "channels_first";
            None means ``keras.config.image_data_format()``.

    Returns:
        The transformed images, of ``images``' shape and dtype.

    Raises:
        ShapeError: If the points are not of shape (4, 2) or (batch, 4, 2).
    """
    op = "perspective_transform"
    data_format, images = _data_format(op, data_format), _images(op, images)
    order = INTERPOLATIONS[_choice(op, "interpolation", interpolation, tuple(INTERPOLATIONS))]
    dtype = _compute_dtype(images)
    points = []
    for arg, p in (("start_points", start_points), ("end_points", end_points)):
        p = cast(as_tensor(op, p), dtype)
        if p.ndim not in (2, 3) or tuple(p.shape[-2:]) != (4, 2):
            raise ShapeError(f"{op}: Invalid {arg} shape: expected (4, 2) or (batch, 4, 2) "
                             f"for argument '{arg}'; received shape "
                             f"{describe_shape(p.shape)}")
        points.append(p if p.ndim == 3 else expand_dims(p, 0))
    if tuple(points[0].shape) != tuple(points[1].shape):
        raise ShapeError(f"{op}: 'start_points' and 'end_points' must have one shape; "
                         f"received {describe_shape(points[0].shape)} and "
                         f"{describe_shape(points[1].shape)}")
    x = _to_nhwc(images, data_format, dtype)
    batch, height, width, channels = x.shape
    h = _homography(*points)
    a = [reshape(h[:, k], (-1, 1, 1, 1)) for k in range(8)]
    ys = reshape(arange(height, dtype=dtype), (1, height, 1, 1))
    xs = reshape(arange(width, dtype=dtype), (1, 1, width, 1))
    denom = add(add(multiply(a[6], xs), multiply(a[7], ys)), 1.0)
    x_in = divide(add(add(multiply(a[0], xs), multiply(a[1], ys)), a[2]), denom)
    y_in = divide(add(add(multiply(a[3], xs), multiply(a[4], ys)), a[5]), denom)
    out = sample(x, batch_and_channel(batch, channels, y_in, x_in, x), order, "constant",
                 fill_value)
    return _from_nhwc(out, data_format, images.ndim, images.dtype)


from .image_more import (crop_images, elastic_transform, extract_patches,  # noqa: E402
                         extract_patches_3d, gaussian_blur, pad_images, sobel_edges, ssim)
