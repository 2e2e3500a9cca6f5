"""MobileNetV3 Small and Large (Howard et al. 2019): inverted residual blocks with
squeeze-and-excitation and hard-swish, or the "minimalistic" variant without either; Keras's
layer names, so that Keras's weights files load.

The models take pixels in [0, 255] (with `include_preprocessing=True` a Rescaling layer maps
them to [-1, 1]), so `preprocess_input` returns its input unchanged, as Keras's does.
"""
from __future__ import annotations

import warnings

from .. import backend
from .. import config
from .. import layers
from ..models import Model
from .mobilenet import decode_predictions
from .mobilenet_v2 import make_divisible
from .model_setup import (channel_axis, check_classifier_activation, check_weights_argument,
                          correct_pad, load_weights, model_input, source_inputs)

__all__ = ["MobileNetV3Small", "MobileNetV3Large", "preprocess_input", "decode_predictions"]

BASE_WEIGHT_URL = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v3/"

# (expansion, filters, kernel ("k" = 5, or 3 when minimalistic), stride, squeeze-excite,
#  activation ("relu", or "act" = hard-swish, relu when minimalistic)) per block
_SMALL = ((1, 16, 3, 2, True, "relu"), (72 / 16, 24, 3, 2, False, "relu"),
          (88 / 24, 24, 3, 1, False, "relu"), (4, 40, "k", 2, True, "act"),
          (6, 40, "k", 1, True, "act"), (6, 40, "k", 1, True, "act"),
          (3, 48, "k", 1, True, "act"), (3, 48, "k", 1, True, "act"),
          (6, 96, "k", 2, True, "act"), (6, 96, "k", 1, True, "act"),
          (6, 96, "k", 1, True, "act"))
_LARGE = ((1, 16, 3, 1, False, "relu"), (4, 24, 3, 2, False, "relu"),
          (3, 24, 3, 1, False, "relu"), (3, 40, "k", 2, True, "relu"),
          (3, 40, "k", 1, True, "relu"), (3, 40, "k", 1, True, "relu"),
          (6, 80, 3, 2, False, "act"), (2.5, 80, 3, 1, False, "act"),
          (2.3, 80, 3, 1, False, "act"), (2.3, 80, 3, 1, False, "act"),
          (6, 112, 3, 1, True, "act"), (6, 112, 3, 1, True, "act"),
          (6, 160, "k", 2, True, "act"), (6, 160, "k", 1, True, "act"),
          (6, 160, "k", 1, True, "act"))


def _relu(x):
    return layers.ReLU()(x)


def _hard_swish(x):
    return layers.Activation("hard_swish")(x)


def _hard_sigmoid(x):
    return layers.ReLU(6.0)(x + 3.0) * (1.0 / 6.0)


def _image_shape(model, input_shape, input_tensor):
    first = config.image_data_format() == "channels_first"
    if input_shape is not None and input_tensor is not None:
        if not backend.is_keras_tensor(input_tensor):
            raise ValueError(f"{model}: argument 'input_tensor' must be a symbolic tensor "
                             f"(lamina.layers.Input); received {input_tensor!r}")
        if input_tensor.shape[1 if first else 2] != input_shape[1]:
            raise ValueError(
                f"{model}: the shape of 'input_tensor' must agree with 'input_shape'; "
                f"received input_tensor.shape={tuple(input_tensor.shape)}, "
                f"input_shape={input_shape!r}")
    if input_shape is None and input_tensor is not None and backend.is_keras_tensor(
            input_tensor):
        rows, cols = tuple(input_tensor.shape)[(2 if first else 1):(4 if first else 3)]
        input_shape = (3, cols, rows) if first else (cols, rows, 3)
    if input_shape is None:
        input_shape = (3, None, None) if first else (None, None, 3)
    rows, cols = (input_shape[1], input_shape[2]) if first else (input_shape[0], input_shape[1])
    if rows and cols and (rows < 32 or cols < 32):
        raise ValueError(f"{model}: the input must be at least 32x32; received "
                         f"input_shape={input_shape!r}")
    return tuple(input_shape), rows, cols


def _mobilenet_v3(model, blocks, last_point_ch, input_shape, alpha, model_type, minimalistic,
                  include_top, weights, input_tensor, classes, pooling, dropout_rate,
                  classifier_activation, include_preprocessing, name):
    check_weights_argument(model, weights, include_top, classes)
    input_shape, rows, cols = _image_shape(model, input_shape, input_tensor)
    if weights == "imagenet":
        if (alpha not in (0.75, 1.0)) if not minimalistic else alpha != 1.0:
            raise ValueError(f"{model}: with weights='imagenet', argument 'alpha' must be 0.75 "
                             f"or 1.0 (1.0 when minimalistic=True); received alpha={alpha!r}, "
                             f"minimalistic={minimalistic!r}")
        if rows != cols or rows != 224:
            warnings.warn(f"{model}: input_shape is undefined, non-square or not 224x224; the "
                          "weights for 224x224 are loaded", stacklevel=3)
    image = model_input(input_tensor, input_shape)
    axis = channel_axis()
    kernel, activation, se_ratio = ((3, _relu, None) if minimalistic
                                    else (5, _hard_swish, 0.25))

    x = image
    if include_preprocessing:
        x = layers.Rescaling(scale=1.0 / 127.5, offset=-1.0)(x)
    x = layers.Conv2D(16, kernel_size=3, strides=(2, 2), padding="same", use_bias=False,
                      name="conv")(x)
    x = layers.BatchNormalization(axis=axis, epsilon=1e-3, momentum=0.999, name="conv_bn")(x)
    x = activation(x)
    for block_id, (expansion, filters, size, stride, se, act) in enumerate(blocks):
        x = _inverted_res_block(x, expansion, make_divisible(filters * alpha, 8),
                                kernel if size == "k" else size, stride,
                                se_ratio if se else None,
                                _relu if act == "relu" else activation, block_id)

    last_conv_ch = make_divisible(x.shape[axis] * 6, 8)
    if alpha > 1.0:
        last_point_ch = make_divisible(last_point_ch * alpha, 8)
    x = layers.Conv2D(last_conv_ch, kernel_size=1, padding="same", use_bias=False,
                      name="conv_1")(x)
    x = layers.BatchNormalization(axis=axis, epsilon=1e-3, momentum=0.999,
                                  name="conv_1_bn")(x)
    x = activation(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Conv2D(last_point_ch, kernel_size=1, padding="same", use_bias=True,
                          name="conv_2")(x)
        x = activation(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate)(x)
        x = layers.Conv2D(classes, kernel_size=1, padding="same", name="logits")(x)
        x = layers.Flatten()(x)
        check_classifier_activation(model, classifier_activation, weights)
        x = layers.Activation(activation=classifier_activation, name="predictions")(x)
    elif pooling == "avg":
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
    elif pooling == "max":
        x = layers.GlobalMaxPooling2D(name="max_pool")(x)

    result = Model(source_inputs(input_tensor, image), x, name=name)
    weights_name = f"{model_type}{'_minimalistic' if minimalistic else ''}_224_{alpha}_float"
    file_name = (f"weights_mobilenet_v3_{weights_name}.h5" if include_top
                 else f"weights_mobilenet_v3_{weights_name}_no_top_v2.h5")
    load_weights(result, weights, model, file_name, BASE_WEIGHT_URL + file_name)
    return result


def _se_block(inputs, filters, se_ratio, prefix):
    x = layers.GlobalAveragePooling2D(keepdims=True,
                                      name=f"{prefix}squeeze_excite_avg_pool")(inputs)
    x = layers.Conv2D(make_divisible(filters * se_ratio, 8), kernel_size=1, padding="same",
                      name=f"{prefix}squeeze_excite_conv")(x)
    x = layers.ReLU(name=f"{prefix}squeeze_excite_relu")(x)
    x = layers.Conv2D(filters, kernel_size=1, padding="same",
                      name=f"{prefix}squeeze_excite_conv_1")(x)
    x = _hard_sigmoid(x)
    return layers.Multiply(name=f"{prefix}squeeze_excite_mul")([inputs, x])


def _inverted_res_block(x, expansion, filters, kernel_size, stride, se_ratio, activation,
                        block_id):
    axis = channel_axis()
    shortcut = x
    prefix = "expanded_conv_"
    in_filters = x.shape[axis]
    if block_id:
        prefix = f"expanded_conv_{block_id}_"
        x = layers.Conv2D(make_divisible(in_filters * expansion, 8), kernel_size=1,
                          padding="same", use_bias=False, name=f"{prefix}expand")(x)
        x = layers.BatchNormalization(axis=axis, epsilon=1e-3, momentum=0.999,
                                      name=f"{prefix}expand_bn")(x)
        x = activation(x)
    if stride == 2:
        x = layers.ZeroPadding2D(padding=correct_pad(x, kernel_size),
                                 name=f"{prefix}depthwise_pad")(x)
    x = layers.DepthwiseConv2D(kernel_size, strides=stride,
                               padding="same" if stride == 1 else "valid", use_bias=False,
                               name=f"{prefix}depthwise")(x)
    x = layers.BatchNormalization(axis=axis, epsilon=1e-3, momentum=0.999,
                                  name=f"{prefix}depthwise_bn")(x)
    x = activation(x)
    if se_ratio:
        x = _se_block(x, make_divisible(in_filters * expansion, 8), se_ratio, prefix)
    x = layers.Conv2D(filters, kernel_size=1, padding="same", use_bias=False,
                      name=f"{prefix}project")(x)
    x = layers.BatchNormalization(axis=axis, epsilon=1e-3, momentum=0.999,
                                  name=f"{prefix}project_bn")(x)
    if stride == 1 and in_filters == filters:
        x = layers.Add(name=f"{prefix}add")([shortcut, x])
    return x


def MobileNetV3Small(input_shape=None, alpha=1.0, minimalistic=False, include_top=True,
                     weights="imagenet", input_tensor=None, classes=1000, pooling=None,
                     dropout_rate=0.2, classifier_activation="softmax",
                     include_preprocessing=True, name="MobileNetV3Small"):
    """Instantiates MobileNetV3Small (Keras's `keras.applications.MobileNetV3Small`).

    Takes pixels in [0, 255] when `include_preprocessing` (the default), else in [-1, 1].
    `weights` is None, "imagenet" (the file Keras publishes, placed in `$LAMINA_HOME/models`)
    or the path of a weights file.

    Args:
        input_shape: an optional ``(height, width, channels)`` tuple (channels first
            under ``channels_first``); at least 32x32; with the top and
            ``"imagenet"`` weights only 224x224x3.
        alpha: float, the width multiplier of every layer's filters (default 1.0;
            the ImageNet weights exist for 0.35 up to 1.4, depending on the model).
        minimalistic: bool; drop squeeze-and-excite, hard-swish and 5x5
            convolutions (default False).
        include_top: bool; end with the fully connected classifier (default True).
        weights: None (random initialization), ``"imagenet"`` (the file Keras
            publishes, read from the models cache folder) or the path of a weights file.
        input_tensor: an optional tensor (a ``keras.Input`` output) to use as the
            model's input.
        classes: int, the number of classes of the top (default 1000; 1000 with
            ``"imagenet"`` weights).
        pooling: without the top, None (a 4-D feature map out), ``"avg"`` or ``"max"``
            (global pooling to a 2-D output).
        dropout_rate: float, the dropout rate before the top (default 0.2).
        classifier_activation: the activation of the top layer, a name or
            callable (default ``"softmax"``; None gives logits).
        include_preprocessing: bool; start with a Rescaling layer mapping [0, 255]
            to [-1, 1] (default True).
        name: the model's name (default ``"MobileNetV3Small"``).

    Returns:
        A functional ``Model``.

    Raises:
        ValueError: an argument out of range, such as ``weights="imagenet"`` with
            ``include_top=True`` and ``classes`` other than 1000.

    Example:

    >>> import lamina as keras
    >>> model = keras.applications.MobileNetV3Small(weights=None, include_top=False,
    ...     input_shape=(32, 32, 3), pooling="avg")
    """
    return _mobilenet_v3("MobileNetV3Small", _SMALL, 1024, input_shape, alpha, "small",
                         minimalistic, include_top, weights, input_tensor, classes, pooling,
                         dropout_rate, classifier_activation, include_preprocessing, name)


def MobileNetV3Large(input_shape=None, alpha=1.0, minimalistic=False, include_top=True,
                     weights="imagenet", input_tensor=None, classes=1000, pooling=None,
                     dropout_rate=0.2, classifier_activation="softmax",
                     include_preprocessing=True, name="MobileNetV3Large"):
    """Instantiates MobileNetV3Large (Keras's `keras.applications.MobileNetV3Large`).

    Takes pixels in [0, 255] when `include_preprocessing` (the default), else in [-1, 1].
    `weights` is None, "imagenet" (the file Keras publishes, placed in `$LAMINA_HOME/models`)
    or the path of a weights file.

    Args:
        input_shape: an optional ``(height, width, channels)`` tuple (channels first
            under ``channels_first``); at least 32x32; with the top and
            ``"imagenet"`` weights only 224x224x3.
        alpha: float, the width multiplier of every layer's filters (default 1.0;
            the ImageNet weights exist for 0.35 up to 1.4, depending on the model).
        minimalistic: bool; drop squeeze-and-excite, hard-swish and 5x5
            convolutions (default False).
        include_top: bool; end with the fully connected classifier (default True).
        weights: None (random initialization), ``"imagenet"`` (the file Keras
            publishes, read from the models cache folder) or the path of a weights file.
        input_tensor: an optional tensor (a ``keras.Input`` output) to use as the
            model's input.
        classes: int, the number of classes of the top (default 1000; 1000 with
            ``"imagenet"`` weights).
        pooling: without the top, None (a 4-D feature map out), ``"avg"`` or ``"max"``
            (global pooling to a 2-D output).
        dropout_rate: float, the dropout rate before the top (default 0.2).
        classifier_activation: the activation of the top layer, a name or
            callable (default ``"softmax"``; None gives logits).
        include_preprocessing: bool; start with a Rescaling layer mapping [0, 255]
            to [-1, 1] (default True).
        name: the model's name (default ``"MobileNetV3Large"``).

    Returns:
        A functional ``Model``.

    Raises:
        ValueError: an argument out of range, such as ``weights="imagenet"`` with
            ``include_top=True`` and ``classes`` other than 1000.

    Example:

    >>> import lamina as keras
    >>> model = keras.applications.MobileNetV3Large(weights=None, include_top=False,
    ...     input_shape=(32, 32, 3), pooling="avg")
    """
    return _mobilenet_v3("MobileNetV3Large", _LARGE, 1280, input_shape, alpha, "large",
                         minimalistic, include_top, weights, input_tensor, classes, pooling,
                         dropout_rate, classifier_activation, include_preprocessing, name)


def preprocess_input(x, data_format=None):
    """Returns `x` unchanged: MobileNetV3 models rescale their input themselves (kept, as in
    Keras, so that code written for other applications runs)."""
    return x
