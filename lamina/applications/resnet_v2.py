"""ResNet50V2/101V2/152V2 (He et al., ECCV 2016: pre-activation residual blocks), with
Keras's layer names, so Keras's weight files load."""
from __future__ import annotations

from .preprocessing import decode_predictions as _decode_predictions
from .preprocessing import preprocess_input as _preprocess_input
from .resnet import build_resnet

__all__ = ["ResNet50V2", "ResNet101V2", "ResNet152V2", "preprocess_input",
           "decode_predictions"]


def ResNet50V2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
               pooling=None, classes=1000, classifier_activation="softmax",
               name="resnet50v2"):
    """ResNet50V2 (25,613,800 parameters at 224x224). Inputs:
    ``resnet_v2.preprocess_input`` (tf mode: pixels scaled to [-1, 1]). Arguments as
    :func:`lamina.applications.ResNet50`.

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
        name: the model's name (default ``"resnet50v2"``).

    Returns:
        A functional ``Model``.

    Raises:
        ValueError: an argument out of range, such as ``weights="imagenet"`` with
            ``include_top=True`` and ``classes`` other than 1000.

    Example:

    >>> import lamina as keras
    >>> model = keras.applications.ResNet50V2(weights=None, include_top=False,
    ...     input_shape=(32, 32, 3), pooling="avg")
    """
    return build_resnet("ResNet50V2", (3, 4, 6, 3), True, include_top, weights,
                        input_tensor, input_shape, pooling, classes, classifier_activation,
                        name)


def ResNet101V2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax",
                name="resnet101v2"):
    """ResNet101V2 (44,675,560 parameters). Arguments as :func:`ResNet50V2`.

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
        name: the model's name (default ``"resnet101v2"``).

    Returns:
        A functional ``Model``.

    Raises:
        ValueError: an argument out of range, such as ``weights="imagenet"`` with
            ``include_top=True`` and ``classes`` other than 1000.

    Example:

    >>> import lamina as keras
    >>> model = keras.applications.ResNet101V2(weights=None, include_top=False,
    ...     input_shape=(32, 32, 3), pooling="avg")
    """
    return build_resnet("ResNet101V2", (3, 4, 23, 3), True, include_top, weights,
                        input_tensor, input_shape, pooling, classes, classifier_activation,
                        name)


def ResNet152V2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax",
                name="resnet152v2"):
    """ResNet152V2 (60,380,648 parameters). Arguments as :func:`ResNet50V2`.

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
        name: the model's name (default ``"resnet152v2"``).

    Returns:
        A functional ``Model``.

    Raises:
        ValueError: an argument out of range, such as ``weights="imagenet"`` with
            ``include_top=True`` and ``classes`` other than 1000.

    Example:

    >>> import lamina as keras
    >>> model = keras.applications.ResNet152V2(weights=None, include_top=False,
    ...     input_shape=(32, 32, 3), pooling="avg")
    """
    return build_resnet("ResNet152V2", (3, 8, 36, 3), True, include_top, weights,
                        input_tensor, input_shape, pooling, classes, classifier_activation,
                        name)


def preprocess_input(x, data_format=None):
    """ResNetV2's preprocessing: pixels scaled to [-1, 1] (tf mode)."""
    return _preprocess_input(x, data_format=data_format, mode="tf")


def decode_predictions(preds, top=5):
    """The ``top`` ImageNet classes per sample: ``(wordnet id, name, score)``."""
    return _decode_predictions(preds, top=top)
