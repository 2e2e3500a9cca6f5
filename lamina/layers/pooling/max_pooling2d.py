"""``MaxPooling2D``: the maximum over windows of (batch, height, width, channels) images."""
from __future__ import annotations

from .base_pooling import BasePooling


class MaxPooling2D(BasePooling):
    """2-D max pooling (Keras 3's ``MaxPooling2D``); ``strides=None`` means ``pool_size``.

    Args:
        pool_size: Size of the pooling window: an int, or a tuple of one int per spatial axis.
        strides: Step of the window (an int or a tuple); None means ``pool_size``.
        padding: 'valid' (windows inside the input only) or 'same' (padded so that the output
            has ``ceil(size / strides)`` steps per axis).
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
        name: Name of the layer; None derives a unique one from the class name.

    Example:

    >>> lamina.layers.MaxPooling2D(2)(np.zeros((1, 28, 28, 3))).shape
    (1, 14, 14, 3)
    """

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None,
                 name=None, **kwargs):
        super().__init__(pool_size, strides, pool_dimensions=2, pool_mode="max",
                         padding=padding, data_format=data_format, name=name, **kwargs)
