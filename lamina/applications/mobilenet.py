"""MobileNet (Howard et al. 2017): depthwise-separable convolutions, width multiplier
`alpha`, depth multiplier, with Keras's layer names so that Keras's weights files load.

`preprocess_input` scales pixels from [0, 255] to [-1, 1] (Keras's mode "tf").
"""
from __future__ import annotations

import warnings

from .. import backend, config, layers, ops
from ..models import Model
from .model_setup import (
    channel_axis, check_classifier_activation, check_weights_argument, input_shape_for,
    load_weights, model_input, source_inputs
)
from .preprocessing import decode_predictions as decode

__all__ = ["MobileNet", "preprocess_input", "decode_predictions"]

BASE_WEIGHT_URL = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet/"
_ALPHA_TEXT = {1.0: "1_0", 0.75: "7_5", 0.5: "5_0", 0.25: "2_5"}


def MobileNet(input_shape=None, alpha=1.0, depth_multiplier=1, dropout=0.001,
              include_top=True, weights="imagenet", input_tensor=None, pooling=None,
              classes=1000, classifier_activation="softmax", name=None):
    """Instantiates the MobileNet architecture (Keras's `keras.applications.MobileNet`).

    Inputs are expected in [-1, 1]: pass images through
    `lamina.applications.mobilenet.preprocess_input`. `weights` is None, "imagenet" (the file
    Keras publishes, placed in `$LAMINA_HOME/models`) or the path of a weights file.

    Args:
        input_shape: an optional ``(height, width, channels)`` tuple (channels first
            under ``channels_first``); at least 32x32; with the top and
            ``"imagenet"`` weights only 224x224x3.
        alpha: float, the width multiplier of every layer's filters (default 1.0;
            the ImageNet weights exist for 0.35 up to 1.4, depending on the model).
        depth_multiplier: int, the depthwise convolutions' depth multiplier
            (default 1).
        dropout: float, the dropout rate before the top (default 0.001).
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
    >>> model = keras.applications.MobileNet(weights=None, include_top=False,
    ...     input_shape=(32, 32, 3), pooling="avg")
    """
    check_weights_argument("MobileNet", weights, include_top, classes)
    default_size = 224
    if input_shape is not None and len(input_shape) == 3:
        first = config.image_data_format() == "channels_first"
        rows, cols = (input_shape[1], input_shape[2]) if first else input_shape[:2]
        if rows == cols and rows in (128, 160, 192, 224):
            default_size = rows
    input_shape = input_shape_for("MobileNet", input_shape, default_size, 32, include_top,
                                  weights)
    first = config.image_data_format() == "channels_first"
    rows, cols = (input_shape[1], input_shape[2]) if first else input_shape[:2]
    if weights == "imagenet":
        if depth_multiplier != 1:
            raise ValueError("MobileNet: with weights='imagenet', argument 'depth_multiplier' "
                             f"must be 1; received {depth_multiplier!r}")
        if alpha not in _ALPHA_TEXT:
            raise ValueError("MobileNet: with weights='imagenet', argument 'alpha' must be one "
                             f"of 0.25, 0.50, 0.75 or 1.0; received {alpha!r}")
        if rows != cols or rows not in (128, 160, 192, 224):
            rows = 224
            warnings.warn("MobileNet: input_shape is undefined, non-square or its size is not "
                          "in [128, 160, 192, 224]; loading the weights for 224x224",
                          stacklevel=2)
    image = model_input(input_tensor, input_shape)

    x = _conv_block(image, 32, alpha, strides=(2, 2))
    plan = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1), (512, 1),
            (512, 1), (512, 1), (512, 1), (1024, 2), (1024, 1)]
    for block_id, (filters, stride) in enumerate(plan, start=1):
        x = _depthwise_conv_block(x, filters, alpha, depth_multiplier, stride, block_id)

    if include_top:
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Dropout(dropout, name="dropout")(x)
        x = layers.Conv2D(classes, (1, 1), padding="same", name="conv_preds")(x)
        x = layers.Reshape((classes,), name="reshape_2")(x)
        check_classifier_activation("MobileNet", classifier_activation, weights)
        x = layers.Activation(activation=classifier_activation, name="predictions")(x)
    elif pooling == "avg":
        x = layers.GlobalAveragePooling2D()(x)
    elif pooling == "max":
        x = layers.GlobalMaxPooling2D()(x)

    if name is None:
        name = f"mobilenet_{alpha:0.2f}_{rows}"
    model = Model(source_inputs(input_tensor, image), x, name=name)
    if weights == "imagenet":
        file_name = f"mobilenet_{_ALPHA_TEXT[alpha]}_{rows}_tf{'' if include_top else '_no_top'}.h5"
        load_weights(model, weights, "MobileNet", file_name, BASE_WEIGHT_URL + file_name)
    else:
        load_weights(model, weights, "MobileNet", "", "")
    return model


def _conv_block(x, filters, alpha, strides):
    x = layers.Conv2D(int(filters * alpha), (3, 3), padding="same", use_bias=False,
                      strides=strides, name="conv1")(x)
    x = layers.BatchNormalization(axis=channel_axis(), name="conv1_bn")(x)
    return layers.ReLU(6.0, name="conv1_relu")(x)


def _depthwise_conv_block(x, filters, alpha, depth_multiplier, stride, block_id):
    if stride != 1:
        x = layers.ZeroPadding2D(((0, 1), (0, 1)), name=f"conv_pad_{block_id}")(x)
    x = layers.DepthwiseConv2D((3, 3), padding="same" if stride == 1 else "valid",
                               depth_multiplier=depth_multiplier, strides=(stride, stride),
                               use_bias=False, name=f"conv_dw_{block_id}")(x)
    x = layers.BatchNormalization(axis=channel_axis(), name=f"conv_dw_{block_id}_bn")(x)
    x = layers.ReLU(6.0, name=f"conv_dw_{block_id}_relu")(x)
    x = layers.Conv2D(int(filters * alpha), (1, 1), padding="same", use_bias=False,
                      strides=(1, 1), name=f"conv_pw_{block_id}")(x)
    x = layers.BatchNormalization(axis=channel_axis(), name=f"conv_pw_{block_id}_bn")(x)
    return layers.ReLU(6.0, name=f"conv_pw_{block_id}_relu")(x)


def scale_to_unit_range(x, data_format=None):
    """Keras's preprocess_input mode "tf": `x / 127.5 - 1`, the pixels of [0, 255] in [-1, 1].
    Arrays come back as new arrays (integer ones as floatx), tensors as tensors."""
    if data_format not in (None, "channels_first", "channels_last"):
        raise ValueError("preprocess_input: argument 'data_format' must be None, "
                         f"'channels_first' or 'channels_last'; received {data_format!r}")
    symbolic = ops.is_tensor(x) or backend.is_keras_tensor(x)
    tensor = x if symbolic else ops.convert_to_tensor(x)
    if not str(tensor.dtype).startswith(("float", "bfloat")):
        tensor = ops.cast(tensor, config.floatx())
    out = tensor / 127.5 - 1.0
    return out if symbolic else ops.convert_to_numpy(out)


def preprocess_input(x, data_format=None):
    """Scales images from [0, 255] to [-1, 1], as the MobileNet weights expect."""
    return scale_to_unit_range(x, data_format=data_format)


def decode_predictions(preds, top=5):
    """The `top` ImageNet classes of each row of `preds`: (class id, name, score) tuples."""
    return decode(preds, top=top)
