"""MobileNetV2 (Sandler et al. 2018): inverted residual blocks with linear bottlenecks,
with Keras's layer names so that Keras's weights files load.

`preprocess_input` scales pixels from [0, 255] to [-1, 1] (Keras's mode "tf").
"""
from __future__ import annotations

import warnings

from .. import backend, config, layers
from ..models import Model
from .mobilenet import decode_predictions, scale_to_unit_range
from .model_setup import (
    channel_axis, check_classifier_activation, check_weights_argument, correct_pad, input_shape_for,
    load_weights, model_input, source_inputs
)

__all__ = ["MobileNetV2", "preprocess_input", "decode_predictions"]

BASE_WEIGHT_URL = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v2/"
_SIZES = (96, 128, 160, 192, 224)
# (filters, stride, expansion) of blocks 0..16
_BLOCKS = ([(16, 1, 1), (24, 2, 6), (24, 1, 6)] + [(32, 2, 6)] + [(32, 1, 6)] * 2
           + [(64, 2, 6)] + [(64, 1, 6)] * 3 + [(96, 1, 6)] * 3 + [(160, 2, 6)]
           + [(160, 1, 6)] * 2 + [(320, 1, 6)])


def _rows_cols(shape):
    if config.image_data_format() == "channels_first":
        return shape[1], shape[2]
    return shape[0], shape[1]


def MobileNetV2(input_shape=None, alpha=1.0, include_top=True, weights="imagenet",
                input_tensor=None, pooling=None, classes=1000,
                classifier_activation="softmax", name=None):
    """Instantiates the MobileNetV2 architecture (Keras's `keras.applications.MobileNetV2`).

    Inputs are expected in [-1, 1]: pass images through
    `lamina.applications.mobilenet_v2.preprocess_input`. `weights` is None, "imagenet" (the
    file Keras publishes, placed in `$LAMINA_HOME/models`) or the path of a weights file.

    Args:
        input_shape: an optional ``(height, width, channels)`` tuple (channels first
            under ``channels_first``); at least 32x32; with the top and
            ``"imagenet"`` weights only 224x224x3.
        alpha: float, the width multiplier of every layer's filters (default 1.0;
            the ImageNet weights exist for 0.35 up to 1.4, depending on the model).
        include_top: bool; end with the fully connected classifier (default True).
        weights: None (random initialization), ``"imagenet"`` (the file Keras
            publishes, read from the models cache folder) or the path of a weights file.
        input_tensor: an optional tensor (a ``keras.Input`` output) to use as the
            model's input.
        pooling: without the top, None (a 4-D feature map out), ``"avg"`` or ``"max"``
            (global pooling to a 2-D output).
        classes: int, the number of classes of the top (default 1000; 1000 with
            ``"imagenet"`` weights).
        classifier_activation: the activation of the top layer, a name or
            callable (default ``"softmax"``; None gives logits).
        name: the model's name (default ``None: an automatic name``).

    Returns:
        A functional ``Model``.

    Raises:
        ValueError: an argument out of range, such as ``weights="imagenet"`` with
            ``include_top=True`` and ``classes`` other than 1000.

    Example:

    >>> import lamina as keras
    >>> model = keras.applications.MobileNetV2(weights=None, include_top=False,
    ...     input_shape=(32, 32, 3), pooling="avg")
    """
    check_weights_argument("MobileNetV2", weights, include_top, classes)
    if input_shape is not None and input_tensor is not None:
        if not backend.is_keras_tensor(input_tensor):
            raise ValueError("MobileNetV2: argument 'input_tensor' must be a symbolic tensor "
                             f"(lamina.layers.Input); received {input_tensor!r}")
        first = config.image_data_format() == "channels_first"
        if input_tensor.shape[1 if first else 2] != input_shape[1]:
            raise ValueError(
                "MobileNetV2: the shape of 'input_tensor' must agree with 'input_shape'; "
                f"received input_tensor.shape={tuple(input_tensor.shape)}, "
                f"input_shape={input_shape!r}")
    default_size = 224
    if input_shape is not None and len(input_shape) == 3:
        rows, cols = _rows_cols(input_shape)
        default_size = rows if rows == cols and rows in _SIZES else 224
    elif input_tensor is not None and len(input_tensor.shape) == 4:
        rows, cols = _rows_cols(tuple(input_tensor.shape)[1:])
        default_size = rows if rows == cols and rows in _SIZES else 224
    input_shape = input_shape_for("MobileNetV2", input_shape, default_size, 32, include_top,
                                  weights)
    rows, cols = _rows_cols(input_shape)
    if weights == "imagenet":
        if alpha not in (0.35, 0.50, 0.75, 1.0, 1.3, 1.4):
            raise ValueError("MobileNetV2: with weights='imagenet', argument 'alpha' must be "
                             f"one of 0.35, 0.50, 0.75, 1.0, 1.3 or 1.4; received {alpha!r}")
        if rows != cols or rows not in _SIZES:
            rows = 224
            warnings.warn("MobileNetV2: input_shape is undefined, non-square or its size is "
                          "not in [96, 128, 160, 192, 224]; loading the weights for 224x224",
                          stacklevel=2)
    image = model_input(input_tensor, input_shape)
    axis = channel_axis()

    x = layers.Conv2D(make_divisible(32 * alpha, 8), kernel_size=3, strides=(2, 2),
                      padding="same", use_bias=False, name="Conv1")(image)
    x = layers.BatchNormalization(axis=axis, epsilon=1e-3, momentum=0.999, name="bn_Conv1")(x)
    x = layers.ReLU(6.0, name="Conv1_relu")(x)
    for block_id, (filters, stride, expansion) in enumerate(_BLOCKS):
        x = _inverted_res_block(x, expansion, stride, alpha, filters, block_id)

    last = make_divisible(1280 * alpha, 8) if alpha > 1.0 else 1280
    x = layers.Conv2D(last, kernel_size=1, use_bias=False, name="Conv_1")(x)
    x = layers.BatchNormalization(axis=axis, epsilon=1e-3, momentum=0.999, name="Conv_1_bn")(x)
    x = layers.ReLU(6.0, name="out_relu")(x)

    if include_top:
        x = layers.GlobalAveragePooling2D()(x)
        check_classifier_activation("MobileNetV2", classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    elif pooling == "avg":
        x = layers.GlobalAveragePooling2D()(x)
    elif pooling == "max":
        x = layers.GlobalMaxPooling2D()(x)

    if name is None:
        name = f"mobilenetv2_{alpha:0.2f}_{rows}"
    model = Model(source_inputs(input_tensor, image), x, name=name)
    file_name = (f"mobilenet_v2_weights_tf_dim_ordering_tf_kernels_{float(alpha)}_{rows}"
                 f"{'' if include_top else '_no_top'}.h5")
    load_weights(model, weights, "MobileNetV2", file_name, BASE_WEIGHT_URL + file_name)
    return model


def _inverted_res_block(inputs, expansion, stride, alpha, filters, block_id):
    axis = channel_axis()
    in_channels = inputs.shape[axis]
    pointwise_filters = make_divisible(int(filters * alpha), 8)
    x = inputs
    prefix = f"block_{block_id}_"
    if block_id:
        x = layers.Conv2D(expansion * in_channels, kernel_size=1, padding="same",
                          use_bias=False, activation=None, name=f"{prefix}expand")(x)
        x = layers.BatchNormalization(axis=axis, epsilon=1e-3, momentum=0.999,
                                      name=f"{prefix}expand_BN")(x)
        x = layers.ReLU(6.0, name=f"{prefix}expand_relu")(x)
    else:
        prefix = "expanded_conv_"
    if stride == 2:
        x = layers.ZeroPadding2D(padding=correct_pad(x, 3), name=f"{prefix}pad")(x)
    x = layers.DepthwiseConv2D(kernel_size=3, strides=stride, activation=None, use_bias=False,
                               padding="same" if stride == 1 else "valid",
                               name=f"{prefix}depthwise")(x)
    x = layers.BatchNormalization(axis=axis, epsilon=1e-3, momentum=0.999,
                                  name=f"{prefix}depthwise_BN")(x)
    x = layers.ReLU(6.0, name=f"{prefix}depthwise_relu")(x)
    x = layers.Conv2D(pointwise_filters, kernel_size=1, padding="same", use_bias=False,
                      activation=None, name=f"{prefix}project")(x)
    x = layers.BatchNormalization(axis=axis, epsilon=1e-3, momentum=0.999,
                                  name=f"{prefix}project_BN")(x)
    if in_channels == pointwise_filters and stride == 1:
        return layers.Add(name=f"{prefix}add")([inputs, x])
    return x


def make_divisible(value, divisor, min_value=None) -> int:
    """`value` rounded to a multiple of `divisor` (at least `min_value`), never more than 10%
    below `value`."""
    min_value = divisor if min_value is None else min_value
    rounded = max(min_value, int(value + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * value else rounded


def preprocess_input(x, data_format=None):
    """Scales images from [0, 255] to [-1, 1], as the MobileNetV2 weights expect."""
    return scale_to_unit_range(x, data_format=data_format)
