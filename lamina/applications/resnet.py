"""ResNet50/101/152 (He et al., CVPR 2015) and the residual stacks ResNetV2 shares, with
Keras's layer names (``conv2_block1_1_conv``, ...), so Keras's weight files load."""
from __future__ import annotations

from .. import layers
from .builder import channel_axis, classifier_top, finish_model, prepare
from .preprocessing import decode_predictions as _decode_predictions
from .preprocessing import preprocess_input as _preprocess_input

__all__ = ["ResNet50", "ResNet101", "ResNet152", "preprocess_input", "decode_predictions"]

_EPSILON = 1.001e-5


def _bn(x, name: str):
    return layers.BatchNormalization(axis=channel_axis(), epsilon=_EPSILON, name=name)(x)


def residual_block_v1(x, filters: int, kernel_size=3, stride=1, conv_shortcut=True,
                      name=None):
    """Bottleneck block (1x1, 3x3, 1x1 convolutions, post-activation), ``4 * filters``
    output channels, a 1x1 convolution shortcut or the identity."""
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=f"{name}_0_conv")(x)
        shortcut = _bn(shortcut, f"{name}_0_bn")
    else:
        shortcut = x
    x = layers.Conv2D(filters, 1, strides=stride, name=f"{name}_1_conv")(x)
    x = layers.Activation("relu", name=f"{name}_1_relu")(_bn(x, f"{name}_1_bn"))
    x = layers.Conv2D(filters, kernel_size, padding="same", name=f"{name}_2_conv")(x)
    x = layers.Activation("relu", name=f"{name}_2_relu")(_bn(x, f"{name}_2_bn"))
    x = _bn(layers.Conv2D(4 * filters, 1, name=f"{name}_3_conv")(x), f"{name}_3_bn")
    x = layers.Add(name=f"{name}_add")([shortcut, x])
    return layers.Activation("relu", name=f"{name}_out")(x)


def stack_residual_blocks_v1(x, filters: int, blocks: int, stride1=2, name=None):
    x = residual_block_v1(x, filters, stride=stride1, name=f"{name}_block1")
    for i in range(2, blocks + 1):
        x = residual_block_v1(x, filters, conv_shortcut=False, name=f"{name}_block{i}")
    return x


def residual_block_v2(x, filters: int, kernel_size=3, stride=1, conv_shortcut=False,
                      name=None):
    """Pre-activation bottleneck block (batch norm and ReLU before the convolutions)."""
    preact = layers.Activation("relu", name=f"{name}_preact_relu")(
        _bn(x, f"{name}_preact_bn"))
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride,
                                 name=f"{name}_0_conv")(preact)
    else:
        shortcut = layers.MaxPooling2D(1, strides=stride)(x) if stride > 1 else x
    x = layers.Conv2D(filters, 1, strides=1, use_bias=False, name=f"{name}_1_conv")(preact)
    x = layers.Activation("relu", name=f"{name}_1_relu")(_bn(x, f"{name}_1_bn"))
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name=f"{name}_2_pad")(x)
    x = layers.Conv2D(filters, kernel_size, strides=stride, use_bias=False,
                      name=f"{name}_2_conv")(x)
    x = layers.Activation("relu", name=f"{name}_2_relu")(_bn(x, f"{name}_2_bn"))
    x = layers.Conv2D(4 * filters, 1, name=f"{name}_3_conv")(x)
    return layers.Add(name=f"{name}_out")([shortcut, x])


def stack_residual_blocks_v2(x, filters: int, blocks: int, stride1=2, name=None):
    x = residual_block_v2(x, filters, conv_shortcut=True, name=f"{name}_block1")
    for i in range(2, blocks):
        x = residual_block_v2(x, filters, name=f"{name}_block{i}")
    return residual_block_v2(x, filters, stride=stride1, name=f"{name}_block{blocks}")


def build_resnet(model_name: str, depths, preact: bool, include_top, weights, input_tensor,
                 input_shape, pooling, classes, classifier_activation, name):
    """A ResNet (``preact=False``) or ResNetV2 with ``depths`` blocks in stages 2..5."""
    img_input = prepare(model_name, include_top, weights, input_tensor, input_shape, classes)
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)), name="conv1_pad")(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=True, name="conv1_conv")(x)
    if not preact:
        x = layers.Activation("relu", name="conv1_relu")(_bn(x, "conv1_bn"))
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name="pool1_pad")(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    for stage, (filters, blocks) in enumerate(zip((64, 128, 256, 512), depths), start=2):
        if preact:
            stride = 1 if stage == 5 else 2
            x = stack_residual_blocks_v2(x, filters, blocks, stride1=stride,
                                         name=f"conv{stage}")
        else:
            stride = 1 if stage == 2 else 2
            x = stack_residual_blocks_v1(x, filters, blocks, stride1=stride,
                                         name=f"conv{stage}")
    if preact:
        x = layers.Activation("relu", name="post_relu")(_bn(x, "post_bn"))
    x = classifier_top(model_name, x, include_top, pooling, classes, classifier_activation,
                       weights)
    stem = model_name.lower()
    files = (f"{stem}_weights_tf_dim_ordering_tf_kernels.h5",
             f"{stem}_weights_tf_dim_ordering_tf_kernels_notop.h5")
    return finish_model(model_name, name, input_tensor, img_input, x, weights, include_top,
                        files, "resnet/")


def ResNet50(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
             pooling=None, classes=1000, classifier_activation="softmax", name="resnet50"):
    """ResNet50 (25,636,712 parameters at 224x224). Inputs:
    ``resnet.preprocess_input`` (caffe mode). ``weights``: None, ``"imagenet"`` (Keras's
    file from the models cache folder) or a weights file path; ``input_shape`` and
    ``pooling`` as for :func:`lamina.applications.VGG16`.

    Args:
        include_top: bool; end with the fully connected classifier (default True).
        weights: None (random initialization), ``"imagenet"`` (the file Keras
            publishes, read from the models cache folder) or the path of a weights file.
        input_tensor: an optional tensor (a ``keras.Input`` output) to use as the
            model's input.
        input_shape: an optional ``(height, width, channels)`` tuple (channels first
            under ``channels_first``); at least 32x32; with the top and
            ``"imagenet"`` weights only 224x224x3.
        pooling: without the top, None (a 4-D feature map out), ``"avg"`` or ``"max"``
            (global pooling to a 2-D output).
        classes: int, the number of classes of the top (default 1000; 1000 with
            ``"imagenet"`` weights).
        classifier_activation: the activation of the top layer, a name or
            callable (default ``"softmax"``; None gives logits).
        name: the model's name (default ``"resnet50"``).

    Returns:
        A functional ``Model``.

    Raises:
        ValueError: an argument out of range, such as ``weights="imagenet"`` with
            ``include_top=True`` and ``classes`` other than 1000.

    Example:

    >>> import lamina as keras
    >>> model = keras.applications.ResNet50(weights=None, include_top=False,
    ...     input_shape=(32, 32, 3), pooling="avg")
    """
    return build_resnet("ResNet50", (3, 4, 6, 3), False, include_top, weights,
                        input_tensor, input_shape, pooling, classes, classifier_activation,
                        name)


def ResNet101(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
              pooling=None, classes=1000, classifier_activation="softmax", name="resnet101"):
    """ResNet101 (44,707,176 parameters). Arguments as :func:`ResNet50`.

    Args:
        include_top: bool; end with the fully connected classifier (default True).
        weights: None (random initialization), ``"imagenet"`` (the file Keras
            publishes, read from the models cache folder) or the path of a weights file.
        input_tensor: an optional tensor (a ``keras.Input`` output) to use as the
            model's input.
        input_shape: an optional ``(height, width, channels)`` tuple (channels first
            under ``channels_first``); at least 32x32; with the top and
            ``"imagenet"`` weights only 224x224x3.
        pooling: without the top, None (a 4-D feature map out), ``"avg"`` or ``"max"``
            (global pooling to a 2-D output).
        classes: int, the number of classes of the top (default 1000; 1000 with
            ``"imagenet"`` weights).
        classifier_activation: the activation of the top layer, a name or
            callable (default ``"softmax"``; None gives logits).
        name: the model's name (default ``"resnet101"``).

    Returns:
        A functional ``Model``.

    Raises:
        ValueError: an argument out of range, such as ``weights="imagenet"`` with
            ``include_top=True`` and ``classes`` other than 1000.

    Example:

    >>> import lamina as keras
    >>> model = keras.applications.ResNet101(weights=None, include_top=False,
    ...     input_shape=(32, 32, 3), pooling="avg")
    """
    return build_resnet("ResNet101", (3, 4, 23, 3), False, include_top, weights,
                        input_tensor, input_shape, pooling, classes, classifier_activation,
                        name)


def ResNet152(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
              pooling=None, classes=1000, classifier_activation="softmax", name="resnet152"):
    """ResNet152 (60,419,944 parameters). Arguments as :func:`ResNet50`.

    Args:
        include_top: bool; end with the fully connected classifier (default True).
        weights: None (random initialization), ``"imagenet"`` (the file Keras
            publishes, read from the models cache folder) or the path of a weights file.
        input_tensor: an optional tensor (a ``keras.Input`` output) to use as the
            model's input.
        input_shape: an optional ``(height, width, channels)`` tuple (channels first
            under ``channels_first``); at least 32x32; with the top and
            ``"imagenet"`` weights only 224x224x3.
        pooling: without the top, None (a 4-D feature map out), ``"avg"`` or ``"max"``
            (global pooling to a 2-D output).
        classes: int, the number of classes of the top (default 1000; 1000 with
            ``"imagenet"`` weights).
        classifier_activation: the activation of the top layer, a name or
            callable (default ``"softmax"``; None gives logits).
        name: the model's name (default ``"resnet152"``).

    Returns:
        A functional ``Model``.

    Raises:
        ValueError: an argument out of range, such as ``weights="imagenet"`` with
            ``include_top=True`` and ``classes`` other than 1000.

    Example:

    >>> import lamina as keras
    >>> model = keras.applications.ResNet152(weights=None, include_top=False,
    ...     input_shape=(32, 32, 3), pooling="avg")
    """
    return build_resnet("ResNet152", (3, 8, 36, 3), False, include_top, weights,
                        input_tensor, input_shape, pooling, classes, classifier_activation,
                        name)


def preprocess_input(x, data_format=None):
    """ResNet's preprocessing: RGB -> BGR and ImageNet mean subtraction (caffe mode)."""
    return _preprocess_input(x, data_format=data_format, mode="caffe")


def decode_predictions(preds, top=5):
    """The ``top`` ImageNet classes per sample: ``(wordnet id, name, score)``."""
    return _decode_predictions(preds, top=top)
