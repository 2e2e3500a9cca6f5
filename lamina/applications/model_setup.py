"""What every application builder does around its layers: check `weights`/`classes`/
`classifier_activation`, resolve `input_shape` and `input_tensor` into the model's input,
pad before a strided 'valid' convolution as Keras does, and load the weights at the end.

`weights="imagenet"` never downloads: the file Keras would fetch is looked up in
``$LAMINA_HOME/models`` (``~/.lamina/models``), and a missing one is an error that names the
file, the address to download it from and the folder to put it in.
"""
from __future__ import annotations

import os
import warnings

from .. import activations
from .. import backend
from .. import layers
from ..datasets.files import cache_dir
from ..errors import LaminaError
from ..utils import get_source_inputs

__all__ = ["PretrainedWeightsUnavailableError", "check_weights_argument", "model_input",
           "source_inputs", "input_shape_for", "correct_pad", "check_classifier_activation",
           "models_dir", "imagenet_weights_path", "load_weights", "channel_axis"]


class PretrainedWeightsUnavailableError(LaminaError, FileNotFoundError):
    """`weights="imagenet"` and the pretrained weights file is not in the cache folder."""


def channel_axis() -> int:
    return 1 if backend.image_data_format() == "channels_first" else -1


def check_weights_argument(model: str, weights, include_top: bool, classes: int) -> None:
    if not (weights in ("imagenet", None) or os.path.exists(str(weights))):
        raise ValueError(
            f"{model}: argument 'weights' must be None (random initialization), 'imagenet' "
            f"(pre-trained on ImageNet) or the path to an existing weights file; "
            f"received {weights!r}")
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError(
            f"{model}: with weights='imagenet' and include_top=True, argument 'classes' must "
            f"be 1000; received classes={classes!r}")


def _spatial(shape) -> tuple:
    if backend.image_data_format() == "channels_first":
        return shape[1], shape[2]
    return shape[0], shape[1]


def input_shape_for(model: str, input_shape, default_size: int, min_size: int,
                    include_top: bool, weights) -> tuple:
    """Keras's `obtain_input_shape`: the (rows, cols, channels) input shape, or
    (channels, rows, cols) under channels_first, with Keras's checks."""
    first = backend.image_data_format() == "channels_first"
    if weights != "imagenet" and input_shape and len(input_shape) == 3:
        channels = input_shape[0] if first else input_shape[-1]
        if channels not in (1, 3):
            warnings.warn(f"{model}: this model usually expects 1 or 3 input channels; "
                          f"received input_shape={input_shape!r}", stacklevel=3)
    else:
        channels = 3
    default = ((channels, default_size, default_size) if first
               else (default_size, default_size, channels))
    if weights == "imagenet" and include_top:
        if input_shape is not None and tuple(input_shape) != default:
            raise ValueError(
                f"{model}: with include_top=True and weights='imagenet', argument "
                f"'input_shape' must be {default}; received {input_shape!r}")
        return default
    if input_shape:
        input_shape = tuple(input_shape)
        if len(input_shape) != 3:
            raise ValueError(f"{model}: argument 'input_shape' must be a tuple of three "
                             f"integers; received {input_shape!r}")
        if weights == "imagenet" and (input_shape[0] if first else input_shape[-1]) != 3:
            raise ValueError(f"{model}: with weights='imagenet' the input must have 3 "
                             f"channels; received input_shape={input_shape!r}")
        if any(size is not None and size < min_size for size in _spatial(input_shape)):
            raise ValueError(f"{model}: the input size must be at least {min_size}x{min_size}; "
                             f"received input_shape={input_shape!r}")
    else:
        input_shape = (3, None, None) if first else (None, None, 3)
        if include_top:
            input_shape = default
    if include_top and None in input_shape:
        raise ValueError(f"{model}: with include_top=True argument 'input_shape' must be "
                         f"static; received input_shape={input_shape!r}")
    return input_shape


def model_input(input_tensor, input_shape):
    """The graph's image input: `input_tensor` when it is a symbolic tensor, else an Input
    (wrapping `input_tensor` when given)."""
    if input_tensor is None:
        return layers.Input(shape=input_shape)
    if backend.is_keras_tensor(input_tensor):
        return input_tensor
    return layers.Input(tensor=input_tensor, shape=input_shape)


def source_inputs(input_tensor, image_input):
    return image_input if input_tensor is None else get_source_inputs(input_tensor)


def correct_pad(x, kernel_size) -> tuple:
    """The ZeroPadding2D amounts that make a strided 'valid' convolution of `kernel_size`
    cover the input as TensorFlow's 'same' padding does."""
    if isinstance(kernel_size, int):
        kernel_size = (kernel_size, kernel_size)
    first = 2 if backend.image_data_format() == "channels_first" else 1
    size = tuple(x.shape[first:first + 2])
    adjust = (1, 1) if size[0] is None else (1 - size[0] % 2, 1 - size[1] % 2)
    half = (kernel_size[0] // 2, kernel_size[1] // 2)
    return ((half[0] - adjust[0], half[0]), (half[1] - adjust[1], half[1]))


def check_classifier_activation(model: str, classifier_activation, weights) -> None:
    """Pretrained classifiers were trained with softmax: only None or softmax fit them."""
    if weights is None:
        return
    if activations.get(classifier_activation) not in (activations.get("softmax"),
                                                       activations.get(None)):
        raise ValueError(
            f"{model}: with pretrained weights, argument 'classifier_activation' must be None "
            f"or 'softmax'; received {classifier_activation!r}")


def models_dir() -> str:
    """``$LAMINA_HOME/models``: where pretrained weights files are looked up."""
    return os.path.join(os.path.dirname(cache_dir()), "models")


def imagenet_weights_path(model: str, file_name: str, url: str) -> str:
    path = os.path.join(models_dir(), file_name)
    if os.path.isfile(path):
        return path
    raise PretrainedWeightsUnavailableError(
        f"{model}: weights='imagenet' needs the pretrained weights file {file_name!r}, which "
        f"is not in {models_dir()!r}. Lamina does not download it: fetch it from {url} and "
        f"put it at {path!r} (set $LAMINA_HOME to move that folder), or pass its path as "
        f"weights=...")


def load_weights(model_object, weights, model: str, file_name: str, url: str) -> None:
    if weights == "imagenet":
        model_object.load_weights(imagenet_weights_path(model, file_name, url))
    elif weights is not None:
        model_object.load_weights(weights)
