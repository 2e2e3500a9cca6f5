"""The MobileNet and EfficientNet builders' view of the shared application helpers
(builder.py, weights.py): Keras's argument checks, the model input, and weights loading --
plus what only these families use: their channel-axis convention (``-1``) and the padding
before a strided 'valid' convolution.

`weights="imagenet"` never downloads: the file Keras would fetch is looked up in
``$LAMINA_HOME/models`` (``~/.lamina/models``), and a missing one is an error that names the
file, the address to download it from and the folder to put it in.
"""
from __future__ import annotations

import os

from .. import backend
from ..utils import get_source_inputs
from .builder import image_input as model_input
from .builder import obtain_input_shape
from .builder import validate_activation as check_classifier_activation
from .weights import WeightsUnavailableError, check_weights_argument
from .weights import models_dir

__all__ = ["PretrainedWeightsUnavailableError", "check_weights_argument", "model_input",
           "source_inputs", "input_shape_for", "correct_pad", "check_classifier_activation",
           "models_dir", "imagenet_weights_path", "load_weights", "channel_axis"]

# One error class for a missing pretrained file, whichever family asks for it.
PretrainedWeightsUnavailableError = WeightsUnavailableError


def channel_axis() -> int:
    """MobileNet's and EfficientNet's convention (VGG/ResNet/DenseNet write 3)."""
    return 1 if backend.image_data_format() == "channels_first" else -1


def input_shape_for(model: str, input_shape, default_size: int, min_size: int,
                    include_top: bool, weights) -> tuple:
    """Keras's `obtain_input_shape` (see builder.py)."""
    return obtain_input_shape(model, input_shape, default_size, min_size,
                              require_flatten=include_top, weights=weights)


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
    # model.load_weights, not weights.load_application_weights' strict by-name reader:
    # EfficientNet's ImageNet file has no values for the Normalization layer its code adds.
    if weights == "imagenet":
        model_object.load_weights(imagenet_weights_path(model, file_name, url))
    elif weights is not None:
        model_object.load_weights(weights)
