"""The steps every image-classification application shares: check the arguments, make
the input, put the classifier or the pooling on top, wrap it in a model, load weights."""
from __future__ import annotations

import warnings

from .. import activations, layers
from ..config import image_data_format
from ..models import Functional
from ..utils.symbolic_utils import get_source_inputs, is_keras_tensor
from .weights import check_weights_argument, imagenet_file, load_application_weights

__all__ = ["obtain_input_shape", "image_input", "classifier_top", "finish_model",
           "channel_axis", "validate_activation"]


def channel_axis() -> int:
    return 3 if image_data_format() == "channels_last" else 1


def obtain_input_shape(model_name: str, input_shape, default_size: int, min_size: int,
                       require_flatten: bool, weights=None) -> tuple:
    """Keras's rules for ``input_shape``: the default ``(224, 224, 3)`` with a classifier
    (and exactly it with ImageNet weights), ``(None, None, 3)`` without one, a warning for
    a channel count other than 1 or 3, and errors for a bad rank or a too small image."""
    first = image_data_format() == "channels_first"
    if input_shape is not None:
        input_shape = tuple(input_shape)
    if weights != "imagenet" and input_shape and len(input_shape) == 3:
        channels = input_shape[0] if first else input_shape[-1]
        if channels not in (1, 3):
            warnings.warn(f"{model_name}: this model usually expects 1 or 3 input channels; "
                          f"input_shape={input_shape} has {channels}", stacklevel=3)
        default = ((channels, default_size, default_size) if first
                   else (default_size, default_size, channels))
    else:
        default = (3, default_size, default_size) if first else (default_size, default_size, 3)
    if weights == "imagenet" and require_flatten:
        if input_shape is not None and input_shape != default:
            raise ValueError(f"{model_name}: with include_top=True and weights='imagenet', "
                             f"argument 'input_shape' must be {default}; received "
                             f"input_shape={input_shape}")
        return default
    if input_shape:
        if len(input_shape) != 3:
            raise ValueError(f"{model_name}: argument 'input_shape' must be a tuple of three "
                             f"integers; received input_shape={input_shape}")
        channels = input_shape[0] if first else input_shape[-1]
        if channels != 3 and weights == "imagenet":
            raise ValueError(f"{model_name}: with weights='imagenet' the input must have 3 "
                             f"channels; received input_shape={input_shape}")
        sizes = input_shape[1:] if first else input_shape[:2]
        if any(size is not None and size < min_size for size in sizes):
            raise ValueError(f"{model_name}: the input must be at least {min_size}x"
                             f"{min_size}; received input_shape={input_shape}")
    elif require_flatten:
        input_shape = default
    else:
        input_shape = (3, None, None) if first else (None, None, 3)
    if require_flatten and None in input_shape:
        raise ValueError(f"{model_name}: with include_top=True, argument 'input_shape' must "
                         f"be static; received input_shape={input_shape}")
    return input_shape


def image_input(input_tensor, input_shape):
    """The model's input: a new ``Input``, or ``input_tensor`` (wrapped if not symbolic)."""
    if input_tensor is None:
        return layers.Input(shape=input_shape)
    if is_keras_tensor(input_tensor):
        return input_tensor
    return layers.Input(tensor=input_tensor, shape=input_shape)


def validate_activation(model_name: str, classifier_activation, weights) -> None:
    """Pretrained classifiers take only softmax or no activation (Keras's rule)."""
    if weights is None:
        return
    if activations.get(classifier_activation) not in (activations.get("softmax"),
                                                      activations.get(None)):
        raise ValueError(f"{model_name}: with pretrained weights, argument "
                         f"'classifier_activation' must be None or 'softmax'; received "
                         f"classifier_activation={classifier_activation!r}")


def classifier_top(model_name: str, x, include_top: bool, pooling, classes,
                   classifier_activation, weights, pool_names=("avg_pool", "max_pool")):
    """Global average pooling and the ``predictions`` Dense layer, or with
    ``include_top=False`` the pooling asked for (``None``, ``"avg"``, ``"max"``)."""
    avg_name, max_name = pool_names
    if include_top:
        x = layers.GlobalAveragePooling2D(name=avg_name)(x)
        validate_activation(model_name, classifier_activation, weights)
        return layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    return pooled(x, pooling, pool_names)


def pooled(x, pooling, pool_names=(None, None)):
    """``pooling`` on the features of a headless model (any other value: none, as Keras)."""
    if pooling == "avg":
        return layers.GlobalAveragePooling2D(name=pool_names[0])(x)
    if pooling == "max":
        return layers.GlobalMaxPooling2D(name=pool_names[1])(x)
    return x


def finish_model(model_name: str, name: str, input_tensor, img_input, x, weights,
                 include_top: bool, imagenet_files: tuple[str, str], url_folder: str):
    """Wrap ``img_input -> x`` in a Functional model called ``name`` and load ``weights``:
    ``"imagenet"`` from Keras's file (``imagenet_files`` = (with top, without top)) in the
    models cache folder, or a file path."""
    inputs = get_source_inputs(input_tensor) if input_tensor is not None else img_input
    model = Functional(inputs, x, name=name)
    if weights == "imagenet":
        file_name = imagenet_files[0] if include_top else imagenet_files[1]
        load_application_weights(model, imagenet_file(model_name, file_name, url_folder))
    elif weights is not None:
        load_application_weights(model, weights)
    return model


def prepare(model_name: str, include_top, weights, input_tensor, input_shape, classes,
            default_size: int = 224, min_size: int = 32):
    """Check the arguments and return the image input (Keras's common preamble)."""
    check_weights_argument(model_name, weights, include_top, classes)
    input_shape = obtain_input_shape(model_name, input_shape, default_size, min_size,
                                     require_flatten=include_top, weights=weights)
    return image_input(input_tensor, input_shape)
