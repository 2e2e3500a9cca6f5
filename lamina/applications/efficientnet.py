"""EfficientNet B0-B7 (Tan & Le 2019): MBConv blocks with squeeze-and-excitation, scaled in
width, depth and resolution by one coefficient per variant; Keras's layer names, so that
Keras's weights files load.

The models take pixels in [0, 255]: rescaling and normalization are their first layers, so
`preprocess_input` returns its input unchanged (as Keras's does).
"""
from __future__ import annotations

import copy
import math

from .. import config
from .. import layers
from ..models import Model
from .mobilenet import decode_predictions
from .model_setup import (check_classifier_activation, check_weights_argument,
                          correct_pad, input_shape_for, load_weights, model_input,
                          source_inputs)

__all__ = ["EfficientNetB0", "EfficientNetB1", "EfficientNetB2", "EfficientNetB3",
           "EfficientNetB4", "EfficientNetB5", "EfficientNetB6", "EfficientNetB7",
           "preprocess_input", "decode_predictions"]

BASE_WEIGHTS_URL = "https://storage.googleapis.com/keras-applications/"
IMAGENET_STDDEV_RGB = (0.229, 0.224, 0.225)

# (kernel_size, repeats, filters_in, filters_out, expand_ratio, strides) of the seven stages;
# every block has an identity skip when its shape allows and squeeze-excitation ratio 0.25.
STAGES = ((3, 1, 32, 16, 1, 1), (3, 2, 16, 24, 6, 2), (5, 2, 24, 40, 6, 2),
          (3, 3, 40, 80, 6, 2), (5, 3, 80, 112, 6, 1), (5, 4, 112, 192, 6, 2),
          (3, 1, 192, 320, 6, 1))

CONV_KERNEL_INITIALIZER = {"class_name": "VarianceScaling",
                           "config": {"scale": 2.0, "mode": "fan_out",
                                      "distribution": "truncated_normal"}}
DENSE_KERNEL_INITIALIZER = {"class_name": "VarianceScaling",
                            "config": {"scale": 1.0 / 3.0, "mode": "fan_out",
                                       "distribution": "uniform"}}

# name: (width coefficient, depth coefficient, default size, dropout rate)
VARIANTS = {"b0": (1.0, 1.0, 224, 0.2), "b1": (1.0, 1.1, 240, 0.2),
            "b2": (1.1, 1.2, 260, 0.3), "b3": (1.2, 1.4, 300, 0.3),
            "b4": (1.4, 1.8, 380, 0.4), "b5": (1.6, 2.2, 456, 0.4),
            "b6": (1.8, 2.6, 528, 0.5), "b7": (2.0, 3.1, 600, 0.5)}


def _efficientnet(variant, include_top, weights, input_tensor, input_shape, pooling, classes,
                  classifier_activation, name, drop_connect_rate=0.2, depth_divisor=8,
                  activation="swish"):
    width, depth, default_size, dropout_rate = VARIANTS[variant]
    title = f"EfficientNet{variant.upper()}"
    check_weights_argument(title, weights, include_top, classes)
    input_shape = input_shape_for(title, input_shape, default_size, 32, include_top, weights)
    image = model_input(input_tensor, input_shape)
    axis = _bn_axis()

    def round_filters(filters):
        filters *= width
        rounded = max(depth_divisor, int(filters + depth_divisor / 2) // depth_divisor
                      * depth_divisor)
        return int(rounded + depth_divisor if rounded < 0.9 * filters else rounded)

    def round_repeats(repeats):
        return int(math.ceil(depth * repeats))

    x = layers.Rescaling(1.0 / 255.0)(image)
    x = layers.Normalization(axis=axis)(x)
    if weights == "imagenet":
        x = layers.Rescaling([1.0 / math.sqrt(stddev) for stddev in IMAGENET_STDDEV_RGB])(x)
    x = layers.ZeroPadding2D(padding=correct_pad(x, 3), name="stem_conv_pad")(x)
    x = layers.Conv2D(round_filters(32), 3, strides=2, padding="valid", use_bias=False,
                      kernel_initializer=copy.deepcopy(CONV_KERNEL_INITIALIZER),
                      name="stem_conv")(x)
    x = layers.BatchNormalization(axis=axis, name="stem_bn")(x)
    x = layers.Activation(activation, name="stem_activation")(x)

    total = float(sum(round_repeats(stage[1]) for stage in STAGES))
    index = 0
    for i, (kernel_size, repeats, filters_in, filters_out, expand, strides) in enumerate(STAGES):
        filters_in, filters_out = round_filters(filters_in), round_filters(filters_out)
        for j in range(round_repeats(repeats)):
            if j > 0:
                strides, filters_in = 1, filters_out
            x = mbconv_block(x, activation, drop_connect_rate * index / total,
                             f"block{i + 1}{chr(j + 97)}_", filters_in, filters_out,
                             kernel_size, strides, expand, 0.25)
            index += 1

    x = layers.Conv2D(round_filters(1280), 1, padding="same", use_bias=False,
                      kernel_initializer=copy.deepcopy(CONV_KERNEL_INITIALIZER),
                      name="top_conv")(x)
    x = layers.BatchNormalization(axis=axis, name="top_bn")(x)
    x = layers.Activation(activation, name="top_activation")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate, name="top_dropout")(x)
        check_classifier_activation(title, classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation,
                         kernel_initializer=copy.deepcopy(DENSE_KERNEL_INITIALIZER),
                         name="predictions")(x)
    elif pooling == "avg":
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
    elif pooling == "max":
        x = layers.GlobalMaxPooling2D(name="max_pool")(x)

    model = Model(source_inputs(input_tensor, image), x, name=name)
    file_name = name + (".h5" if include_top else "_notop.h5")
    load_weights(model, weights, title, file_name, BASE_WEIGHTS_URL + file_name)
    return model


def mbconv_block(inputs, activation, drop_rate, name, filters_in, filters_out, kernel_size,
                 strides, expand_ratio, se_ratio):
    """Expansion, depthwise convolution, squeeze-and-excitation, projection, and an identity
    skip (with drop-connect) when the block keeps the shape."""
    axis = _bn_axis()
    filters = filters_in * expand_ratio
    conv_init = CONV_KERNEL_INITIALIZER
    x = inputs
    if expand_ratio != 1:
        x = layers.Conv2D(filters, 1, padding="same", use_bias=False,
                          kernel_initializer=copy.deepcopy(conv_init),
                          name=f"{name}expand_conv")(x)
        x = layers.BatchNormalization(axis=axis, name=f"{name}expand_bn")(x)
        x = layers.Activation(activation, name=f"{name}expand_activation")(x)
    if strides == 2:
        x = layers.ZeroPadding2D(padding=correct_pad(x, kernel_size),
                                 name=f"{name}dwconv_pad")(x)
    x = layers.DepthwiseConv2D(kernel_size, strides=strides,
                               padding="valid" if strides == 2 else "same", use_bias=False,
                               depthwise_initializer=copy.deepcopy(conv_init),
                               name=f"{name}dwconv")(x)
    x = layers.BatchNormalization(axis=axis, name=f"{name}bn")(x)
    x = layers.Activation(activation, name=f"{name}activation")(x)
    if 0 < se_ratio <= 1:
        filters_se = max(1, int(filters_in * se_ratio))
        se = layers.GlobalAveragePooling2D(name=f"{name}se_squeeze")(x)
        se_shape = (filters, 1, 1) if axis == 1 else (1, 1, filters)
        se = layers.Reshape(se_shape, name=f"{name}se_reshape")(se)
        se = layers.Conv2D(filters_se, 1, padding="same", activation=activation,
                           kernel_initializer=copy.deepcopy(conv_init),
                           name=f"{name}se_reduce")(se)
        se = layers.Conv2D(filters, 1, padding="same", activation="sigmoid",
                           kernel_initializer=copy.deepcopy(conv_init),
                           name=f"{name}se_expand")(se)
        x = layers.multiply([x, se], name=f"{name}se_excite")
    x = layers.Conv2D(filters_out, 1, padding="same", use_bias=False,
                      kernel_initializer=copy.deepcopy(conv_init),
                      name=f"{name}project_conv")(x)
    x = layers.BatchNormalization(axis=axis, name=f"{name}project_bn")(x)
    if strides == 1 and filters_in == filters_out:
        if drop_rate > 0:
            x = layers.Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=f"{name}drop")(x)
        x = layers.add([x, inputs], name=f"{name}add")
    return x


def _bn_axis() -> int:
    return 1 if config.image_data_format() == "channels_first" else 3


def _builder(variant):
    def build(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
              pooling=None, classes=1000, classifier_activation="softmax",
              name=f"efficientnet{variant}"):
        return _efficientnet(variant, include_top, weights, input_tensor, input_shape, pooling,
                             classes, classifier_activation, name)

    width, depth, size, dropout = VARIANTS[variant]
    build.__name__ = build.__qualname__ = f"EfficientNet{variant.upper()}"
    build.__doc__ = (
        f"Instantiates EfficientNet{variant.upper()} (Keras's "
        f"`keras.applications.EfficientNet{variant.upper()}`): width x{width}, depth "
        f"x{depth}, default input {size}x{size}, dropout {dropout} before the classifier.\n\n"
        "Takes pixels in [0, 255] (rescaling and normalization are its first layers). "
        "`weights` is None, \"imagenet\" (the file Keras publishes, placed in "
        "`$LAMINA_HOME/models`) or the path of a weights file.\n\n"
        "Args:\n"
        "    include_top: bool; end with the fully connected classifier (default True).\n"
        "    weights: None (random initialization), \"imagenet\" or the path of a weights\n"
        "        file.\n"
        "    input_tensor: an optional tensor (a `keras.Input` output) to use as the\n"
        "        model's input.\n"
        "    input_shape: an optional `(height, width, channels)` tuple, at least 32x32;\n"
        f"        with the top and \"imagenet\" weights only {size}x{size}x3.\n"
        "    pooling: without the top, None (a 4-D feature map out), \"avg\" or \"max\"\n"
        "        (global pooling to a 2-D output).\n"
        "    classes: int, the number of classes of the top (default 1000).\n"
        "    classifier_activation: the activation of the top layer, a name or callable\n"
        "        (default \"softmax\"; None gives logits).\n"
        f"    name: the model's name (default \"efficientnet{variant}\").\n\n"
        "Returns:\n"
        "    A functional `Model`.\n\n"
        "Example:\n\n"
        ">>> import lamina as keras\n"
        f">>> model = keras.applications.EfficientNet{variant.upper()}(weights=None,\n"
        "...     include_top=False, input_shape=(32, 32, 3), pooling=\"avg\")\n")
    return build


EfficientNetB0 = _builder("b0")
EfficientNetB1 = _builder("b1")
EfficientNetB2 = _builder("b2")
EfficientNetB3 = _builder("b3")
EfficientNetB4 = _builder("b4")
EfficientNetB5 = _builder("b5")
EfficientNetB6 = _builder("b6")
EfficientNetB7 = _builder("b7")


def preprocess_input(x, data_format=None):
    """Returns `x` unchanged: EfficientNet models rescale and normalize their input
    themselves (kept, as in Keras, so that code written for other applications runs)."""
    return x
