"""``MaxPooling1D``: the maximum over windows of (batch, steps, channels)."""
from __future__ import annotations

from .base_pooling import BasePooling


class MaxPooling1D(BasePooling):
    """1-D max pooling (Keras 3's ``MaxPooling1D``); ``strides=None`` means ``pool_size``.

    Args:
        pool_size: Size of the pooling window (an int).
        strides: Step of the window (an int); None means ``pool_size``.
        padding: 'valid' (windows inside the input only) or 'same' (padded so that the output
            has ``ceil(size / strides)`` steps per axis).
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
        name: Name of the layer; None derives a unique one from the class name.
    """

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None,
                 name=None, **kwargs):
        super().__init__(pool_size, strides, pool_dimensions=1, pool_mode="max",
                         padding=padding, data_format=data_format, name=name, **kwargs)
