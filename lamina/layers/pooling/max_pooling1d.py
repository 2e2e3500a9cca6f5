"""``MaxPooling1D``: the maximum over windows of (batch, steps, channels)."""
from __future__ import annotations

from .base_pooling import BasePooling


class MaxPooling1D(BasePooling):
    """1-D max pooling (Keras 3's ``MaxPooling1D``); ``strides=None`` means ``pool_size``."""

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None,
                 name=None, **kwargs):
        super().__init__(pool_size, strides, pool_dimensions=1, pool_mode="max",
                         padding=padding, data_format=data_format, name=name, **kwargs)
