"""VGG19: VGG16 with 16 convolutions (blocks of 2, 2, 4, 4, 4), Keras's layer names."""
from __future__ import annotations

from .preprocessing import decode_predictions as _decode_predictions
from .preprocessing import preprocess_input as _preprocess_input
from .vgg16 import build_vgg

__all__ = ["VGG19", "preprocess_input", "decode_predictions"]

VGG19_BLOCKS = (2, 2, 4, 4, 4)


def VGG19(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
          pooling=None, classes=1000, classifier_activation="softmax", name="vgg19"):
    """VGG19: 16 convolutions in 5 blocks and, with ``include_top``, three Dense layers
    (143,667,240 parameters at 224x224). Arguments as :func:`lamina.applications.VGG16`.

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
        name: the model's name (default ``"vgg19"``).

    Returns:
        A functional ``Model``.

    Raises:
        ValueError: an argument out of range, such as ``weights="imagenet"`` with
            ``include_top=True`` and ``classes`` other than 1000.

    Example:

    >>> import lamina as keras
    >>> model = keras.applications.VGG19(weights=None, include_top=False,
    ...     input_shape=(32, 32, 3), pooling="avg")
    """
    return build_vgg("VGG19", VGG19_BLOCKS, include_top, weights, input_tensor, input_shape,
                     pooling, classes, classifier_activation, name)


def preprocess_input(x, data_format=None):
    """VGG19's preprocessing: RGB -> BGR and ImageNet mean subtraction (caffe mode)."""
    return _preprocess_input(x, data_format=data_format, mode="caffe")


def decode_predictions(preds, top=5):
    """The ``top`` ImageNet classes per sample: ``(wordnet id, name, score)``."""
    return _decode_predictions(preds, top=top)
