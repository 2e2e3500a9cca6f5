"""Keras 3's image file helpers: ``load_img``, ``img_to_array``, ``array_to_img``,
``save_img`` and ``smart_resize``.

Images are read and written with Pillow, an optional dependency (``pip install
lamina[images]``). This module is an I/O edge: it hands host numpy arrays in and out.
"""
from __future__ import annotations

import io
import pathlib
import warnings

import numpy as np

from .. import backend as _backend
from .. import ops
from ..core.ignored_arguments import warn_ignored
from .optional_import import import_optional

__all__ = ["array_to_img", "img_to_array", "load_img", "save_img", "smart_resize"]

PIL_INTERPOLATIONS = ("nearest", "bilinear", "bicubic", "hamming", "box", "lanczos")
COLOR_MODES = {"grayscale": 1, "rgb": 3, "rgba": 4}


def pil_image(what: str):
    """Pillow's ``PIL.Image`` module, or an error naming the ``images`` extra."""
    return import_optional("PIL.Image", "images", what)


def _data_format(what, data_format):
    data_format = data_format or _backend.image_data_format()
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"{what}: argument 'data_format' must be 'channels_last' or "
                         f"'channels_first'; received {data_format!r}")
    return data_format


def array_to_img(x, data_format=None, scale=True, dtype=None):
    """A PIL image from a rank-3 array (height, width, channels) with 1, 3 or 4 channels.
    ``scale`` stretches the values to 0..255 first.

    Args:
        x: a rank-3 array ``(height, width, channels)`` with 1, 3 or 4 channels.
        data_format: ``"channels_last"`` or ``"channels_first"`` (None: the global
            ``keras.config.image_data_format()``).
        scale: bool; stretch the values to 0..255 first (default True).
        dtype: the array dtype used for the conversion (None: ``floatx()``).

    Returns:
        A ``PIL.Image.Image``.
    """
    image = pil_image("array_to_img")
    data_format = _data_format("array_to_img", data_format)
    x = np.array(x, dtype=dtype or _backend.floatx())
    if x.ndim != 3:
        raise ValueError(f"array_to_img: expected an image array of rank 3 (one image); "
                         f"received shape {x.shape}")
    if data_format == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        peak = np.max(x)
        if peak != 0:
            x = x / peak
        x = x * 255
    channels = x.shape[2]
    if channels in (3, 4):
        return image.fromarray(x.astype("uint8"), "RGB" if channels == 3 else "RGBA")
    if channels == 1:
        if np.max(x) > 255:      # a 32-bit grayscale image: PIL mode "I"
            return image.fromarray(x[:, :, 0].astype("int32"), "I")
        return image.fromarray(x[:, :, 0].astype("uint8"), "L")
    raise ValueError(f"array_to_img: the image must have 1, 3 or 4 channels; received "
                     f"{channels} (shape {x.shape})")


def img_to_array(img, data_format=None, dtype=None):
    """A PIL image (or anything array-like) as a rank-3 array in ``data_format``.

    Args:
        img: a PIL image, or anything array-like.
        data_format: ``"channels_last"`` or ``"channels_first"`` (None: the global
            ``keras.config.image_data_format()``).
        dtype: the dtype of the result (None: ``floatx()``).

    Returns:
        A rank-3 numpy array.
    """
    data_format = _data_format("img_to_array", data_format)
    x = np.asarray(img, dtype=dtype or _backend.floatx())
    if x.ndim == 2:
        x = x[None] if data_format == "channels_first" else x[:, :, None]
    elif x.ndim == 3:
        if data_format == "channels_first":
            x = x.transpose(2, 0, 1)
    else:
        raise ValueError(f"img_to_array: expected an image of rank 2 or 3; received shape "
                         f"{x.shape}")
    return x


def save_img(path, x, data_format=None, file_format=None, scale=True, **kwargs):
    """Write the array ``x`` as an image file; the format comes from the file's suffix
    unless ``file_format`` names it. ``kwargs`` go to Pillow's ``Image.save``.

    Args:
        path: the file path (or a file object).
        x: a rank-3 array.
        data_format: ``"channels_last"`` or ``"channels_first"`` (None: the global
            ``keras.config.image_data_format()``).
        file_format: the format, such as ``"png"`` (None: from the file's suffix).
        scale: bool; stretch the values to 0..255 first (default True).
        **kwargs: passed on to Pillow's ``Image.save``.
    """
    data_format = _data_format("save_img", data_format)
    if file_format is None and isinstance(path, (str, pathlib.Path)):
        file_format = pathlib.Path(path).suffix[1:].lower()
    if file_format and file_format.lower() == "jpg":
        file_format = "jpeg"
    img = array_to_img(x, data_format=data_format, scale=scale)
    if img.mode == "RGBA" and file_format == "jpeg":
        warnings.warn("save_img: the JPEG format does not support RGBA images, converting "
                      "to RGB.", UserWarning, stacklevel=2)
        img = img.convert("RGB")
    img.save(path, format=file_format or None, **kwargs)


def load_img(path, color_mode="rgb", target_size=None, interpolation="nearest",
             keep_aspect_ratio=False):
    """A PIL image read from ``path`` (a path or ``io.BytesIO``), converted to
    ``color_mode`` and resized to ``target_size`` (height, width) when given;
    ``keep_aspect_ratio`` first crops the centered window of the target's aspect ratio.

    Args:
        path: a file path or ``io.BytesIO``.
        color_mode: ``"rgb"`` (default), ``"rgba"`` or ``"grayscale"``.
        target_size: None (the file's size) or ``(height, width)``.
        interpolation: the resampling method when resizing: ``"nearest"`` (default),
            ``"bilinear"``, ``"bicubic"``, ``"lanczos"``, ``"box"`` or ``"hamming"``.
        keep_aspect_ratio: bool; crop the centered window of the target's aspect ratio
            before resizing (default False).

    Returns:
        A ``PIL.Image.Image``.
    """
    image = pil_image("load_img")
    if isinstance(path, io.BytesIO):
        img = image.open(path)
    elif isinstance(path, (pathlib.Path, bytes, str)):
        if isinstance(path, pathlib.Path):
            path = str(path.resolve())
        with open(path, "rb") as f:
            img = image.open(io.BytesIO(f.read()))
    else:
        raise TypeError(f"load_img: argument 'path' must be a path or io.BytesIO; "
                        f"received {type(path).__name__}")
    if color_mode not in COLOR_MODES:
        raise ValueError(f"load_img: argument 'color_mode' must be one of "
                         f"{tuple(COLOR_MODES)}; received {color_mode!r}")
    if color_mode == "grayscale":
        if img.mode not in ("L", "I;16", "I"):   # keep 16- and 32-bit grayscale as they are
            img = img.convert("L")
    elif img.mode != color_mode.upper():
        img = img.convert(color_mode.upper())
    if target_size is None:
        return img
    size = (int(target_size[1]), int(target_size[0]))     # PIL sizes are (width, height)
    if img.size == size:
        return img
    if interpolation not in PIL_INTERPOLATIONS:
        raise ValueError(f"load_img: argument 'interpolation' must be one of "
                         f"{PIL_INTERPOLATIONS}; received {interpolation!r}")
    resample = getattr(getattr(image, "Resampling", image), interpolation.upper())
    box = None
    if keep_aspect_ratio:
        width, height = img.size
        crop_h = min(height, (width * size[1]) // size[0])
        crop_w = min(width, (height * size[0]) // size[1])
        top, left = (height - crop_h) // 2, (width - crop_w) // 2
        box = [left, top, left + crop_w, top + crop_h]
    return img.resize(size, resample, box=box)


def smart_resize(x, size, interpolation="bilinear", data_format="channels_last", **kwargs):
    """Resize one image (rank 3) or a batch (rank 4) to ``size`` without distorting it:
    the largest centered window of the target aspect ratio is cropped, then resized.
    Keras's ``backend_module`` keyword has no meaning here (Lamina's active backend
    resizes) and warns once; any other keyword is an error."""
    backend_module = kwargs.pop("backend_module", None)
    if kwargs:
        raise TypeError(f"smart_resize: unexpected keyword arguments {sorted(kwargs)}")
    if backend_module is not None:
        warn_ignored("smart_resize", "backend_module", backend_module,
                     "the active Lamina backend resizes")
    if len(size) != 2:
        raise ValueError(f"smart_resize: argument 'size' must be (height, width); "
                         f"received {size!r}")
    x = np.asarray(x)
    if x.ndim not in (3, 4):
        raise ValueError(f"smart_resize: expected an image (height, width, channels) or a "
                         f"batch of rank 4; received shape {x.shape}")
    dtype = x.dtype if x.dtype.kind == "f" else np.dtype(_backend.floatx())
    out = ops.image.resize(x.astype(dtype), tuple(size), interpolation=interpolation,
                           crop_to_aspect_ratio=True, data_format=data_format)
    return ops.convert_to_numpy(out)
