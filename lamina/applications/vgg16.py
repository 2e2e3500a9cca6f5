"""VGG16 (Simonyan & Zisserman, ICLR 2015) with Keras's layer names, so Keras's weight
files load, and the brick it is stacked from: :func:`vgg_block`."""
from __future__ import annotations

from .. import layers
from .builder import finish_model, pooled, prepare, validate_activation
from .preprocessing import decode_predictions as _decode_predictions
from .preprocessing import preprocess_input as _preprocess_input

__all__ = ["VGG16", "preprocess_input", "decode_predictions", "vgg_block", "build_vgg"]

VGG16_BLOCKS = (2, 2, 3, 3, 3)
_FILTERS = (64, 128, 256, 512, 512)


def vgg_block(x, filters: int, convs: int, block: int):
    """``convs`` 3x3 'same' ReLU convolutions (``block{block}_conv1``, ...) and a 2x2
    max-pool (``block{block}_pool``): one brick of VGG."""
    for i in range(1, convs + 1):
        x = layers.Conv2D(filters, (3, 3), activation="relu", padding="same",
                          name=f"block{block}_conv{i}")(x)
    return layers.MaxPooling2D((2, 2), strides=(2, 2), name=f"block{block}_pool")(x)


def vgg_top(x, classes: int, classifier_activation):
    """VGG's classifier: ``flatten``, ``fc1`` and ``fc2`` (4096 ReLU), ``predictions``."""
    x = layers.Flatten(name="flatten")(x)
    x = layers.Dense(4096, activation="relu", name="fc1")(x)
    x = layers.Dense(4096, activation="relu", name="fc2")(x)
    return layers.Dense(classes, activation=classifier_activation, name="predictions")(x)


def build_vgg(model_name, blocks, include_top, weights, input_tensor, input_shape, pooling,
              classes, classifier_activation, name):
    """A VGG with ``blocks[i]`` convolutions in block ``i + 1`` (VGG16: 2, 2, 3, 3, 3)."""
    img_input = prepare(model_name, include_top, weights, input_tensor, input_shape, classes)
    x = img_input
    for block, (filters, convs) in enumerate(zip(_FILTERS, blocks), start=1):
        x = vgg_block(x, filters, convs, block)
    if include_top:
        validate_activation(model_name, classifier_activation, weights)
        x = vgg_top(x, classes, classifier_activation)
    else:
        x = pooled(x, pooling)
    folder = model_name.lower() + "/"
    files = (f"{model_name.lower()}_weights_tf_dim_ordering_tf_kernels.h5",
             f"{model_name.lower()}_weights_tf_dim_ordering_tf_kernels_notop.h5")
    return finish_model(model_name, name, input_tensor, img_input, x, weights, include_top,
                        files, folder)


def VGG16(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
          pooling=None, classes=1000, classifier_activation="softmax", name="vgg16"):
    """VGG16: 13 convolutions in 5 blocks and, with ``include_top``, three Dense layers
    (138,357,544 parameters at 224x224). Inputs: ``vgg16.preprocess_input`` (caffe mode).

    ``weights``: None (random), ``"imagenet"`` (Keras's file from the models cache folder,
    see :mod:`lamina.applications.weights`) or a weights file path. ``input_shape`` only
    without the top (at least 32x32); ``pooling`` (``"avg"``/``"max"``) only without it.

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
        name: the model's name (default ``"vgg16"``).

    Returns:
        A functional ``Model``.

    Raises:
        ValueError: an argument out of range, such as ``weights="imagenet"`` with
            ``include_top=True`` and ``classes`` other than 1000.

    Example:

    >>> import lamina as keras
    >>> model = keras.applications.VGG16(weights=None, include_top=False,
    ...     input_shape=(32, 32, 3), pooling="avg")
    """
    return build_vgg("VGG16", VGG16_BLOCKS, include_top, weights, input_tensor, input_shape,
                     pooling, classes, classifier_activation, name)


def preprocess_input(x, data_format=None):
    """VGG16's preprocessing: RGB -> BGR and ImageNet mean subtraction (caffe mode)."""
    return _preprocess_input(x, data_format=data_format, mode="caffe")


def decode_predictions(preds, top=5):
    """The ``top`` ImageNet classes per sample: ``(wordnet id, name, score)``."""
    return _decode_predictions(preds, top=top)
