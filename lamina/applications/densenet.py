"""DenseNet121/169/201 (Huang et al., CVPR 2017) with Keras's layer names
(``conv2_block1_0_bn``, ``pool2_conv``, ...), so Keras's weight files load."""
from __future__ import annotations

from .. import layers
from .builder import channel_axis, classifier_top, finish_model, prepare
from .preprocessing import decode_predictions as _decode_predictions
from .preprocessing import preprocess_input as _preprocess_input

__all__ = ["DenseNet121", "DenseNet169", "DenseNet201", "preprocess_input",
           "decode_predictions"]

_EPSILON = 1.001e-5
_GROWTH_RATE = 32


def _bn_relu(x, name: str):
    x = layers.BatchNormalization(axis=channel_axis(), epsilon=_EPSILON, name=f"{name}_bn")(x)
    return layers.Activation("relu", name=f"{name}_relu")(x)


def conv_block(x, growth_rate: int, name: str):
    """One dense layer: BN-ReLU-1x1 conv (``4 * growth_rate``), BN-ReLU-3x3 conv
    (``growth_rate``), concatenated to its input."""
    y = _bn_relu(x, f"{name}_0")
    y = layers.Conv2D(4 * growth_rate, 1, use_bias=False, name=f"{name}_1_conv")(y)
    y = _bn_relu(y, f"{name}_1")
    y = layers.Conv2D(growth_rate, 3, padding="same", use_bias=False,
                      name=f"{name}_2_conv")(y)
    return layers.Concatenate(axis=channel_axis(), name=f"{name}_concat")([x, y])


def dense_block(x, blocks: int, name: str):
    for i in range(1, blocks + 1):
        x = conv_block(x, _GROWTH_RATE, name=f"{name}_block{i}")
    return x


def transition_block(x, reduction: float, name: str):
    """BN-ReLU, a 1x1 convolution to ``reduction`` times the channels, 2x2 average pool."""
    channels = int(x.shape[channel_axis()] * reduction)
    x = _bn_relu(x, name)
    x = layers.Conv2D(channels, 1, use_bias=False, name=f"{name}_conv")(x)
    return layers.AveragePooling2D(2, strides=2, name=f"{name}_pool")(x)


def build_densenet(model_name: str, blocks, include_top, weights, input_tensor, input_shape,
                   pooling, classes, classifier_activation, name):
    img_input = prepare(model_name, include_top, weights, input_tensor, input_shape, classes)
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)))(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=False, name="conv1_conv")(x)
    x = _bn_relu(x, "conv1")
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)))(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1")(x)
    for stage, count in enumerate(blocks, start=2):
        x = dense_block(x, count, name=f"conv{stage}")
        if stage < 5:
            x = transition_block(x, 0.5, name=f"pool{stage}")
    x = layers.BatchNormalization(axis=channel_axis(), epsilon=_EPSILON, name="bn")(x)
    x = layers.Activation("relu", name="relu")(x)
    x = classifier_top(model_name, x, include_top, pooling, classes, classifier_activation,
                       weights)
    stem = model_name.lower()
    files = (f"{stem}_weights_tf_dim_ordering_tf_kernels.h5",
             f"{stem}_weights_tf_dim_ordering_tf_kernels_notop.h5")
    return finish_model(model_name, name, input_tensor, img_input, x, weights, include_top,
                        files, "densenet/")


def DenseNet121(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax",
                name="densenet121"):
    """DenseNet121 (8,062,504 parameters at 224x224). Inputs:
    ``densenet.preprocess_input`` (torch mode). ``weights``: None, ``"imagenet"`` (Keras's
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
        name: the model's name (default ``"densenet121"``).

    Returns:
        A functional ``Model``.

    Raises:
        ValueError: an argument out of range, such as ``weights="imagenet"`` with
            ``include_top=True`` and ``classes`` other than 1000.

    Example:

    >>> import lamina as keras
    >>> model = keras.applications.DenseNet121(weights=None, include_top=False,
    ...     input_shape=(32, 32, 3), pooling="avg")
    """
    return build_densenet("DenseNet121", (6, 12, 24, 16), include_top, weights,
                          input_tensor, input_shape, pooling, classes,
                          classifier_activation, name)


def DenseNet169(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax",
                name="densenet169"):
    """DenseNet169 (14,307,880 parameters). Arguments as :func:`DenseNet121`.

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
        name: the model's name (default ``"densenet169"``).

    Returns:
        A functional ``Model``.

    Raises:
        ValueError: an argument out of range, such as ``weights="imagenet"`` with
            ``include_top=True`` and ``classes`` other than 1000.

    Example:

    >>> import lamina as keras
    >>> model = keras.applications.DenseNet169(weights=None, include_top=False,
    ...     input_shape=(32, 32, 3), pooling="avg")
    """
    return build_densenet("DenseNet169", (6, 12, 32, 32), include_top, weights,
                          input_tensor, input_shape, pooling, classes,
                          classifier_activation, name)


def DenseNet201(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax",
                name="densenet201"):
    """DenseNet201 (20,242,984 parameters). Arguments as :func:`DenseNet121`.

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
        name: the model's name (default ``"densenet201"``).

    Returns:
        A functional ``Model``.

    Raises:
        ValueError: an argument out of range, such as ``weights="imagenet"`` with
            ``include_top=True`` and ``classes`` other than 1000.

    Example:

    >>> import lamina as keras
    >>> model = keras.applications.DenseNet201(weights=None, include_top=False,
    ...     input_shape=(32, 32, 3), pooling="avg")
    """
    return build_densenet("DenseNet201", (6, 12, 48, 32), include_top, weights,
                          input_tensor, input_shape, pooling, classes,
                          classifier_activation, name)


def preprocess_input(x, data_format=None):
    """DenseNet's preprocessing: scale to [0, 1], then ImageNet mean/std (torch mode)."""
    return _preprocess_input(x, data_format=data_format, mode="torch")


def decode_predictions(preds, top=5):
    """The ``top`` ImageNet classes per sample: ``(wordnet id, name, score)``."""
    return _decode_predictions(preds, top=top)
