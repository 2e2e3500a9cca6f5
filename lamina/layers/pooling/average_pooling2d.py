"""``AveragePooling2D``: the mean over windows of (batch, height, width, channels) images."""
from __future__ import annotations

from .base_pooling import BasePooling


class AveragePooling2D(BasePooling):
    """2-D average pooling (Keras 3's ``AveragePooling2D``); ``strides=None`` means
    ``pool_size``. Padding is left out of the mean. ``pool_size`` has no default in
    Keras 3 (Keras 2 had one).
    """

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None,
                 name=None, **kwargs):
        super().__init__(pool_size, strides, pool_dimensions=2, pool_mode="average",
                         padding=padding, data_format=data_format, name=name, **kwargs)
