"""ImageNet input preprocessing and prediction decoding shared by the applications.

``preprocess_input(x, data_format, mode)`` follows Keras's three modes exactly:

- ``"caffe"`` (VGG, ResNet): RGB -> BGR, then subtract the ImageNet channel means
  ``[103.939, 116.779, 123.68]`` (BGR order), no scaling;
- ``"torch"`` (DenseNet): divide by 255, subtract ``[0.485, 0.456, 0.406]`` and divide by
  ``[0.229, 0.224, 0.225]`` per channel;
- ``"tf"`` (ResNetV2, MobileNet): ``x / 127.5 - 1``.

A numpy array is processed as Keras does it: a float array is overwritten in place (pass a
copy to keep it; integer arrays become ``floatx()`` first); anything else (a Lamina tensor,
a symbolic tensor, a list) goes through ``lamina.ops`` and a new tensor is returned.

``decode_predictions`` reads the ImageNet class index (``imagenet_class_index.json``) from
the models cache folder; Lamina never downloads it (see :mod:`.weights`).
"""
from __future__ import annotations

import json
import os

from .. import ops
from ..config import floatx, image_data_format
from .weights import CLASS_INDEX_FILE, CLASS_INDEX_URL, WeightsUnavailableError, models_dir

__all__ = ["preprocess_input", "decode_predictions", "CAFFE_MEAN", "TORCH_MEAN",
           "TORCH_STD", "load_class_index"]

CAFFE_MEAN = (103.939, 116.779, 123.68)
TORCH_MEAN = (0.485, 0.456, 0.406)
TORCH_STD = (0.229, 0.224, 0.225)
_MODES = ("caffe", "tf", "torch")
_CLASS_INDEX: dict | None = None


def _is_numpy_array(x) -> bool:
    return type(x).__name__ == "ndarray" and type(x).__module__ == "numpy"


def preprocess_input(x, data_format=None, mode="caffe"):
    """Preprocess a batch of images (3D or 4D, three colour channels, values in [0, 255])
    for an ImageNet model, in ``mode`` ``"caffe"``, ``"tf"`` or ``"torch"``."""
    if mode not in _MODES:
        raise ValueError(f"preprocess_input: argument 'mode' must be one of 'caffe', 'tf' "
                         f"or 'torch'; received mode={mode!r}")
    if data_format is None:
        data_format = image_data_format()
    elif data_format not in ("channels_first", "channels_last"):
        raise ValueError(f"preprocess_input: argument 'data_format' must be "
                         f"'channels_first' or 'channels_last'; received "
                         f"data_format={data_format!r}")
    if _is_numpy_array(x):
        return _preprocess_array(x, data_format, mode)
    return _preprocess_tensor(x, data_format, mode)


def _channel_index(ndim: int, data_format: str, channel: int) -> tuple:
    """The index selecting one colour channel of a 3D or 4D image batch."""
    if data_format == "channels_last":
        return (Ellipsis, channel)
    return (channel,) if ndim == 3 else (slice(None), channel)


def _preprocess_array(x, data_format: str, mode: str):
    if x.dtype.kind != "f":
        x = x.astype(floatx(), copy=False)
    if mode == "tf":
        x /= 127.5
        x -= 1.0
        return x
    if mode == "torch":
        x /= 255.0
        mean, std = TORCH_MEAN, TORCH_STD
    else:
        x = x[_flip_index(x.ndim, data_format)]
        mean, std = CAFFE_MEAN, None
    for channel in range(3):
        index = _channel_index(x.ndim, data_format, channel)
        x[index] -= mean[channel]
        if std is not None:
            x[index] /= std[channel]
    return x


def _flip_index(ndim: int, data_format: str) -> tuple:
    """RGB -> BGR: reverse the channel axis."""
    reverse = slice(None, None, -1)
    if data_format == "channels_last":
        return (Ellipsis, reverse)
    return (reverse,) if ndim == 3 else (slice(None), reverse)


def _preprocess_tensor(x, data_format: str, mode: str):
    x = ops.convert_to_tensor(x)
    if "float" not in str(x.dtype):
        x = ops.cast(x, floatx())
    if mode == "tf":
        return x / 127.5 - 1.0
    ndim = len(x.shape)
    axis = -1 if data_format == "channels_last" else ndim - 3
    shape = [1] * ndim
    shape[axis] = 3
    if mode == "torch":
        x = x / 255.0
        mean = ops.reshape(ops.convert_to_tensor(TORCH_MEAN, dtype=x.dtype), shape)
        std = ops.reshape(ops.convert_to_tensor(TORCH_STD, dtype=x.dtype), shape)
        return (x - mean) / std
    x = ops.flip(x, axis=axis)
    mean = ops.reshape(ops.convert_to_tensor(CAFFE_MEAN, dtype=x.dtype), shape)
    return x - mean


def load_class_index(path: str | None = None) -> dict:
    """The ImageNet class index ``{"0": ["n01440764", "tench"], ...}``, read from ``path``
    or from ``imagenet_class_index.json`` in the models cache folder."""
    path = path or os.path.join(models_dir(), CLASS_INDEX_FILE)
    if not os.path.isfile(path):
        raise WeightsUnavailableError(
            f"decode_predictions: the ImageNet class index file {path!r} is missing. "
            f"Lamina does not download it: fetch {CLASS_INDEX_URL} yourself and put it at "
            f"that path (set $LAMINA_HOME to move the cache folder)")
    try:
        with open(path, encoding="utf-8") as handle:
            index = json.load(handle)
        if len(index) != 1000 or any(len(index[str(i)]) != 2 for i in range(1000)):
            raise ValueError("expected 1000 entries '0'..'999' of [wordnet id, name]")
    except (ValueError, KeyError, TypeError) as exc:
        raise WeightsUnavailableError(
            f"decode_predictions: the class index file {path!r} is not ImageNet's "
            f"imagenet_class_index.json ({type(exc).__name__}: {exc}); download it again "
            f"from {CLASS_INDEX_URL}") from exc
    return index


def decode_predictions(preds, top=5):
    """``[[(wordnet id, class name, score), ...] per sample]``: the ``top`` classes of a
    ``(samples, 1000)`` batch of ImageNet predictions, best first."""
    global _CLASS_INDEX
    shape = tuple(preds.shape)
    if len(shape) != 2 or shape[1] != 1000:
        raise ValueError(f"decode_predictions: expected a batch of predictions of shape "
                         f"(samples, 1000); received an array of shape {shape}")
    if _CLASS_INDEX is None:
        _CLASS_INDEX = load_class_index()
    preds = ops.convert_to_numpy(preds)
    results = []
    for pred in preds:
        best = pred.argsort()[-top:][::-1]
        result = [tuple(_CLASS_INDEX[str(i)]) + (pred[i],) for i in best]
        result.sort(key=lambda item: item[2], reverse=True)
        results.append(result)
    return results
