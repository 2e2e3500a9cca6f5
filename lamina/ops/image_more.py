"""The rest of ``keras.ops.image``: crops, pads, filters, patches and the elastic warp
(split from lamina/ops/image.py to keep files small; import them from there)."""
from __future__ import annotations

import numbers

from ..errors import ArgumentTypeError, ShapeError, describe_shape
from . import image_filters
from .reshaping import expand_dims, moveaxis, reshape, squeeze, transpose
from .core import arange, as_tensor, cast
from .image import (INTERPOLATIONS, _choice, _compute_dtype, _data_format, _from_nhwc, _hw,
                    _images, _to_nhwc, batch_and_channel)
from .image_sampling import FILL_MODES, sample
from .math import add, multiply
from .random import random_normal
from .introspection import DynamicDim
from .size_checks import check_size
from .replicate import pad
from .refused import is_symbolic, refused


def _check_box(op, names, values):
    """Exactly one of each (before, after, target) triple is None; all others >= 0."""
    first = [values[0], values[2], values[4]]
    second = [values[1], values[3], values[5]]
    for group, group_names in ((first, [names[0], names[2], names[4]]),
                               (second, [names[1], names[3], names[5]])):
        if group.count(None) != 1:
            shown = ", ".join(f"{n}={v!r}" for n, v in zip(group_names, group))
            raise ValueError(f"{op}: Must specify exactly two of {', '.join(group_names)} "
                             f"(exactly one must be None); received {shown}")
    for name, value in zip(names, values):
        if value is not None and (isinstance(value, bool) or not isinstance(
                value, numbers.Integral)):
            raise ValueError(f"{op}: argument '{name}' must be a non-negative int; "
                             f"received {value!r}")
        if value is not None and value < 0:
            raise ValueError(f"{op}: {name} must be >= 0: argument '{name}' must be a "
                             f"non-negative int; received {value!r}")


def _hw_axes(images, data_format):
    rank = images.ndim
    return (rank - 3, rank - 2) if data_format == "channels_last" else (rank - 2, rank - 1)


def pad_images(images, top_padding=None, left_padding=None, bottom_padding=None,
               right_padding=None, target_height=None, target_width=None, data_format=None):
    """Zero-pad to a size; per side, two of (before, after, target) given.

    Args:
        images: A 3-D (height, width, channels) image or a 4-D batch of images, laid out as
            ``data_format`` says.
        top_padding: Rows of zeros added at the top. Give two of the three per axis (before,
            after, target size); the third is derived.
        left_padding: Columns of zeros added at the left.
        bottom_padding: Rows of zeros added at the bottom.
        right_padding: Columns of zeros added at the right.
        target_height: The height of the result.
        target_width: The width of the result.
        data_format: Either "channels_last" (channels on the last axis) or "channels_first";
            None means ``keras.config.image_data_format()``.

    Returns:
        The padded images.

    Raises:
        ValueError: If not exactly two of the three values are given per axis, or a target
            is smaller than the image.

    Example:

    >>> lamina.ops.image.pad_images(np.ones((2, 2, 1)), 1, 0, 0, 1).shape
    (3, 3, 1)
    """
    op = "pad_images"
    data_format, images = _data_format(op, data_format), _images(op, images)
    names = ["top_padding", "left_padding", "bottom_padding", "right_padding",
             "target_height", "target_width"]
    values = [top_padding, left_padding, bottom_padding, right_padding, target_height,
              target_width]
    _check_box(op, names, values)
    height, width = _hw(images, data_format)
    if (height is None and None in values[0:5:2]) or (width is None and None in
                                                         values[1:6:2]):
        return _pad_unknown_size(images, data_format, values)
    top, left, bottom, right = values[:4]
    top = target_height - bottom - height if top is None else top
    bottom = target_height - top - height if bottom is None else bottom
    left = target_width - right - width if left is None else left
    right = target_width - left - width if right is None else right
    for name, value in zip(names, (top, left, bottom, right)):
        if value < 0:
            raise ValueError(f"{op}: {name} must be >= 0 (the target is smaller than the "
                             f"image {height}x{width}); received {name}={value}")
    widths = [[0, 0] for _ in range(images.ndim)]
    h_axis, w_axis = _hw_axes(images, data_format)
    widths[h_axis], widths[w_axis] = [top, bottom], [left, right]
    return pad(images, widths)


def _pad_unknown_size(images, data_format, values):
    """``pad_images`` where a padding depends on a size known only when the graph runs:
    that side is padded by the most it can need and the result cut to the target; the
    image's size is checked against the target when the graph runs."""
    x = images
    for axis, (before, after, target), names in zip(
            _hw_axes(images, data_format), (values[0:5:2], values[1:6:2]),
            (("top_padding", "bottom_padding", "target_height"),
             ("left_padding", "right_padding", "target_width"))):
        if target is None:
            x = pad(x, [(before, after) if a == axis else (0, 0) for a in range(x.ndim)])
            continue
        given = before if after is None else after
        room = target - given
        message = (f"pad_images: {names[1] if after is None else names[0]} must be >= 0 (the "
                   f"target is smaller than the image): an image of size {{size}} on axis "
                   f"{axis} does not fit {names[2]}={target} with "
                   f"{names[0] if after is None else names[1]}={given}")
        if room < 0:
            raise ValueError(message.replace("{size}", "any"))
        x = check_size(x, axis, room, message)
        widths = (before, room) if after is None else (room, after)
        x = pad(x, [widths if a == axis else (0, 0) for a in range(x.ndim)])
        index = [slice(None)] * x.ndim           # the padded size is the image's + target
        index[axis] = slice(0, target) if after is None else \
            (slice(-target, None) if target else slice(0, 0))
        x = check_size(x[tuple(index)], axis, target, message, exact=True)
    return x


def crop_images(images, top_cropping=None, left_cropping=None, bottom_cropping=None,
                right_cropping=None, target_height=None, target_width=None, data_format=None):
    """Crop a window; per side, two of (before, after, target) given.

    Args:
        images: A 3-D (height, width, channels) image or a 4-D batch of images, laid out as
            ``data_format`` says.
        top_cropping: Rows removed at the top. Give two of the three per axis (before,
            after, target size); the third is derived.
        left_cropping: Columns removed at the left.
        bottom_cropping: Rows removed at the bottom.
        right_cropping: Columns removed at the right.
        target_height: The height of the result.
        target_width: The width of the result.
        data_format: Either "channels_last" (channels on the last axis) or "channels_first";
            None means ``keras.config.image_data_format()``.

    Returns:
        The cropped images.

    Raises:
        ValueError: If not exactly two of the three values are given per axis, or the window
            does not fit.
    """
    op = "crop_images"
    data_format, images = _data_format(op, data_format), _images(op, images)
    names = ["top_cropping", "left_cropping", "bottom_cropping", "right_cropping",
             "target_height", "target_width"]
    values = [top_cropping, left_cropping, bottom_cropping, right_cropping, target_height,
              target_width]
    _check_box(op, names, values)
    height, width = _hw(images, data_format)
    top, left, bottom, right = values[:4]
    for axis, size, before, target, names_ in (
            ("height", height, top, target_height, ("top_cropping", "target_height")),
            ("width", width, left, target_width, ("left_cropping", "target_width"))):
        if size is None and (before is None or target is None):
            # ends with Keras's phrase, which its tests match
            raise ValueError(f"{op}: an image of unknown {axis} needs '{names_[0]}' and "
                             f"'{names_[1]}'; received images.shape="
                             f"{describe_shape(images.shape)}, {names_[0]}={before}, "
                             f"{names_[1]}={target} (When the {axis} of the images is "
                             f"unknown, `{names_[1]}` must be specified.)")
    top = height - target_height - bottom if top is None else top
    target_height = height - bottom - top if target_height is None else target_height
    left = width - target_width - right if left is None else left
    target_width = width - right - left if target_width is None else target_width
    for name, value in (("top_cropping", top), ("target_height", target_height),
                        ("left_cropping", left), ("target_width", target_width)):
        if value < 0:
            raise ValueError(f"{op}: {name} must be >= 0 (the crop does not fit the image "
                             f"{height}x{width}); received {name}={value}")
    if ((height is not None and top + target_height > height)
            or (width is not None and left + target_width > width)):
        raise ValueError(f"{op}: the window ({top}, {left}) of size {target_height}x"
                         f"{target_width} does not fit the image {height}x{width}")
    index = [slice(None)] * images.ndim
    h_axis, w_axis = _hw_axes(images, data_format)
    index[h_axis] = slice(top, top + target_height)
    index[w_axis] = slice(left, left + target_width)
    out = images[tuple(index)]
    shape = list(out.shape)
    shape[h_axis], shape[w_axis] = target_height, target_width
    if None in out.shape and None not in shape:
        # a size unknown while tracing: the window's size is known, and reshaping to it
        # fails when the graph runs if the window does not fit, as eager mode's check does
        out = reshape(out, tuple(shape))
    return out


def _pair(op, arg, value, kind=int):
    items = (value, value) if isinstance(value, numbers.Number) else tuple(value)
    if len(items) != 2:
        raise ValueError(f"{op}: argument '{arg}' must be a number or a pair; received "
                         f"{value!r}")
    return tuple(kind(v) for v in items)


def gaussian_blur(images, kernel_size=(3, 3), sigma=(1.0, 1.0), data_format=None):
    """Each channel convolved with a normalised Gaussian, zero padding, same size.

    Args:
        images: A 3-D (height, width, channels) image or a 4-D batch of images, laid out as
            ``data_format`` says.
        kernel_size: The (height, width) of the Gaussian kernel, or one int for both.
            Defaults to (3, 3).
        sigma: The standard deviation along (height, width), or one number for both.
            Defaults to (1.0, 1.0).
        data_format: Either "channels_last" (channels on the last axis) or "channels_first";
            None means ``keras.config.image_data_format()``.

    Returns:
        The blurred images, of ``images``' shape.
    """
    op = "gaussian_blur"
    data_format, images = _data_format(op, data_format), _images(op, images)
    if is_symbolic(kernel_size, sigma):     # Keras's symbolic rule: images' shape
        return refused(ArgumentTypeError, f"{op}: arguments 'kernel_size' and 'sigma' must be "
                       f"known when the blur is built (numbers or concrete tensors: they "
                       f"shape the kernel); received kernel_size={kernel_size!r}, "
                       f"sigma={sigma!r}", (images, kernel_size, sigma),
                       (images.shape, images.dtype))
    kernel_size = _pair(op, "kernel_size", kernel_size)
    sigma = _pair(op, "sigma", sigma, float)
    dtype = _compute_dtype(images)
    x = _to_nhwc(images, data_format, dtype)
    out = image_filters.gaussian_blur(x, kernel_size, sigma)
    return _from_nhwc(out, data_format, images.ndim, images.dtype)


def sobel_edges(images, data_format=None):
    """(…, 2): the vertical and horizontal Sobel derivatives of each channel (scipy's
    ``ndimage.sobel`` with symmetric padding).

    Args:
        images: A 3-D (height, width, channels) image or a 4-D batch of images, laid out as
            ``data_format`` says.
        data_format: Either "channels_last" (channels on the last axis) or "channels_first";
            None means ``keras.config.image_data_format()``.

    Returns:
        A tensor of ``images``' shape with a new last axis of size 2: the vertical and the
        horizontal derivative.
    """
    op = "sobel_edges"
    data_format, images = _data_format(op, data_format), _images(op, images)
    dtype = _compute_dtype(images)
    x = _to_nhwc(images, data_format, dtype)
    out = image_filters.sobel_edges(x)
    if data_format == "channels_first":
        out = transpose(out, (0, 3, 1, 2, 4))
    if images.ndim == 3:
        out = squeeze(out, 0)
    return out if out.dtype == images.dtype else cast(out, images.dtype)


def ssim(image1, image2, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03,
         data_format=None):
    """Mean structural similarity per image (a scalar for one image).

    Args:
        image1: The first image or batch of images.
        image2: The second, of ``image1``'s shape.
        max_val: The dynamic range of the pixel values (e.g. 1.0 or 255). Defaults to 1.0.
        filter_size: The side of the Gaussian window. Defaults to 11.
        filter_sigma: The standard deviation of the Gaussian window. Defaults to 1.5.
        k1: The constant stabilising the luminance term. Defaults to 0.01.
        k2: The constant stabilising the contrast term. Defaults to 0.03.
        data_format: Either "channels_last" (channels on the last axis) or "channels_first";
            None means ``keras.config.image_data_format()``.

    Returns:
        The mean SSIM of each image: shape (batch,), or a scalar for one image.
    """
    op = "ssim"
    data_format = _data_format(op, data_format)
    image1, image2 = _images(op, image1, "image1"), _images(op, image2, "image2")
    dtype = image1.dtype if image1.dtype.startswith("float") else "float32"
    x, y = _to_nhwc(image1, data_format, dtype), _to_nhwc(image2, data_format, dtype)
    out = image_filters.ssim(x, y, float(max_val), int(filter_size), float(filter_sigma),
                             float(k1), float(k2))
    if image1.ndim == 3:
        out = squeeze(out, 0)
    return out if out.dtype == image1.dtype else cast(out, image1.dtype)


def _patch_args(op, size, strides, dilation_rate, padding, n):
    size = (size,) * n if isinstance(size, numbers.Integral) else size
    if not isinstance(size, (list, tuple)) or len(size) != n:
        raise TypeError(f"{op}: argument 'size' must be an int or a tuple of {n} ints "
                        f"(Expected an int or a tuple of length {n}); received {size!r}")
    size = tuple(size)
    strides = size if not strides else ((strides,) * n if isinstance(strides, int)
                                        else tuple(strides))
    dilation = (dilation_rate,) * n if isinstance(dilation_rate, int) else tuple(
        dilation_rate)
    for arg, value in (("strides", strides), ("dilation_rate", dilation)):
        if len(value) != n:
            raise ValueError(f"{op}: Invalid `{arg}` argument: expected an int or a tuple "
                             f"of {n} ints; received {arg}={value!r}")
    _choice(op, "padding", padding, ("valid", "same"))
    return size, strides, dilation


def extract_patches(images, size, strides=None, dilation_rate=1, padding="valid",
                    data_format=None):
    """2-D patches (``size`` an int or a pair) as the last axis, ``h * w * channels``
    long; a 3-tuple ``size`` goes to ``extract_patches_3d`` as in Keras.

    Args:
        images: A 3-D (height, width, channels) image or a 4-D batch of images, laid out as
            ``data_format`` says.
        size: The patch size: an int, a (height, width) pair, or a 3-tuple for 3-D patches
            (``extract_patches_3d``).
        strides: The step between patches; None (the default) means ``size`` (no overlap).
        dilation_rate: The spacing of the pixels within a patch. Defaults to 1.
        padding: "valid" (the default) or "same".
        data_format: Either "channels_last" (channels on the last axis) or "channels_first";
            None means ``keras.config.image_data_format()``.

    Returns:
        A tensor (batch, rows, cols, patch_height * patch_width * channels) (channels last),
        one flattened patch per position.

    Raises:
        TypeError: If ``size`` is not an int or a tuple.
        ValueError: If ``size`` has the wrong length.
    """
    if isinstance(size, bool) or not isinstance(size, (numbers.Integral, list, tuple)):
        raise TypeError(f"extract_patches: Invalid `size` argument. Expected an int or a "
                        f"tuple of 2 or 3 ints; received size={size!r} of type "
                        f"{type(size).__name__}")
    if not isinstance(size, numbers.Integral) and len(size) not in (2, 3):
        raise ValueError(f"extract_patches: Invalid `size` argument. Expected a tuple of "
                         f"length 2 or 3; received size={size!r} with length {len(size)}")
    if not isinstance(size, numbers.Integral) and len(size) == 3:
        return extract_patches_3d(images, size, strides, dilation_rate, padding, data_format)
    op = "extract_patches"
    data_format, images = _data_format(op, data_format), _images(op, images)
    size, strides, dilation = _patch_args(op, size, strides, dilation_rate, padding, 2)
    x = _to_nhwc(images, data_format)
    out = image_filters.extract_patches(x, size, strides, dilation, padding)
    return _from_nhwc(out, data_format, images.ndim)


def extract_patches_3d(volumes, size, strides=None, dilation_rate=1, padding="valid",
                       data_format=None):
    """3-D patches of (batch,) depth, height, width, channels volumes.

    Args:
        volumes: A 4-D volume or a 5-D batch of volumes (depth, height, width, channels;
            channels first when ``data_format`` says so).
        size: The patch size: an int or a (depth, height, width) triple.
        strides: The step between patches; None (the default) means ``size``.
        dilation_rate: The spacing of the voxels within a patch. Defaults to 1.
        padding: "valid" (the default) or "same".
        data_format: Either "channels_last" (channels on the last axis) or "channels_first";
            None means ``keras.config.image_data_format()``.

    Returns:
        A tensor with one flattened patch (``pd * ph * pw * channels`` values) per position
        on its last axis.

    Raises:
        ShapeError: If ``volumes`` is not 4-D or 5-D.
    """
    op = "extract_patches_3d"
    data_format = _data_format(op, data_format)
    volumes = as_tensor(op, volumes)
    if volumes.ndim not in (4, 5):
        raise ShapeError(f"{op}: argument 'volumes' must have rank 4 (one volume) or 5 (a "
                         f"batch); received shape {describe_shape(volumes.shape)}")
    size, strides, dilation = _patch_args(op, size, strides, dilation_rate, padding, 3)
    x = volumes if volumes.ndim == 5 else expand_dims(volumes, 0)
    if data_format == "channels_first":
        x = moveaxis(x, 1, -1)
    out = image_filters.extract_patches(x, size, strides, dilation, padding)
    if data_format == "channels_first":
        out = moveaxis(out, -1, 1)
    return out if volumes.ndim == 5 else squeeze(out, 0)


def elastic_transform(images, alpha=20.0, sigma=5.0, interpolation="bilinear",
                      fill_mode="reflect", fill_value=0.0, seed=None, data_format=None):
    """Displace each pixel by ``alpha`` times a Gaussian-smoothed (``sigma``) normal
    field scaled by ``sigma``, then resample (Keras's recipe; Lamina's random draws).

    Args:
        images: A 3-D (height, width, channels) image or a 4-D batch of images, laid out as
            ``data_format`` says.
        alpha: The scale of the displacements. Defaults to 20.0.
        sigma: The standard deviation of the Gaussian smoothing the displacement field.
            Defaults to 5.0.
        interpolation: "bilinear" (the default) or "nearest".
        fill_mode: How points outside the image are filled: "reflect" (the default),
            "constant", "nearest", "mirror" or "wrap".
        fill_value: The value used for points outside the input when ``fill_mode`` is
            "constant".
        seed: An int or a ``keras.random.SeedGenerator`` for the random field; None draws a
            fresh one.
        data_format: Either "channels_last" (channels on the last axis) or "channels_first";
            None means ``keras.config.image_data_format()``.

    Returns:
        The transformed images, of ``images``' shape and dtype.
    """
    op = "elastic_transform"
    data_format, images = _data_format(op, data_format), _images(op, images)
    order = INTERPOLATIONS[_choice(op, "interpolation", interpolation, tuple(INTERPOLATIONS))]
    _choice(op, "fill_mode", fill_mode, FILL_MODES)
    dtype = _compute_dtype(images)
    x = _to_nhwc(images, data_format, dtype)
    batch, height, width, channels = x.shape
    sigma, alpha = float(sigma), float(alpha)
    k = int(6 * sigma) | 1
    if batch is None:
        # the same draw as (2 * batch, ...) below, element for element (a draw depends on
        # the element's row-major index), with the batch size read from x when run
        field = random_normal((2, DynamicDim(x, 0), height, width, 1), dtype=dtype,
                              seed=seed)
        field = reshape(field, (-1, height, width, 1))
    else:
        field = random_normal((2 * batch, height, width, 1), dtype=dtype, seed=seed)
    field = image_filters.gaussian_blur(multiply(field, sigma), (k, k), (sigma, sigma))
    if batch is None:
        field = reshape(field, (2, -1, height, width, 1))
        dx, dy = field[0], field[1]
    else:
        dx, dy = field[:batch], field[batch:]
    ys = reshape(arange(height, dtype=dtype), (1, height, 1, 1))
    xs = reshape(arange(width, dtype=dtype), (1, 1, width, 1))
    x_in, y_in = add(xs, multiply(dx, alpha)), add(ys, multiply(dy, alpha))
    out = sample(x, batch_and_channel(batch, channels, y_in, x_in, x), order, fill_mode,
                 fill_value)
    return _from_nhwc(out, data_format, images.ndim, images.dtype)
