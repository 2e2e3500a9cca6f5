"""``MaxPooling2D``: the maximum over windows of (batch, height, width, channels) images."""
from __future__ import annotations

from .base_pooling import BasePooling


class MaxPooling2D(BasePooling):
    """2-D max pooling (Keras 3's ``MaxPooling2D``); ``strides=None`` means ``pool_size``."""

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None,
                 name=None, **kwargs):
        super().__init__(pool_size, strides, pool_dimensions=2, pool_mode="max",
                         padding=padding, data_format=data_format, name=name, **kwargs)
