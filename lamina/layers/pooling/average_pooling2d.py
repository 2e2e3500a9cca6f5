"""``AveragePooling2D``: the mean over windows of (batch, height, width, channels) images."""
from __future__ import annotations

from .base_pooling import BasePooling


class AveragePooling2D(BasePooling):
    """2-D average pooling (Keras 3's ``AveragePooling2D``); ``strides=None`` means
    ``pool_size``. Padding is left out of the mean. ``pool_size`` has no default in
    Keras 3 (Keras 2 had one).

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

    >>> lamina.layers.AveragePooling2D(2, strides=1)(np.zeros((1, 4, 4, 1))).shape
    (1, 3, 3, 1)
    """

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None,
                 name=None, **kwargs):
        super().__init__(pool_size, strides, pool_dimensions=2, pool_mode="average",
                         padding=padding, data_format=data_format, name=name, **kwargs)
