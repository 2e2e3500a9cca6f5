"""``MaxPooling3D``: the maximum over windows of volumes (batch, depth, height, width, C)."""
from __future__ import annotations

from ..convolutional import conv_utils as cu
from .base_pooling import BasePooling
from .pooling3d import pool3d


class MaxPooling3D(BasePooling):
    """3-D max pooling (Keras 3's ``MaxPooling3D``); ``strides=None`` means
    ``pool_size``.

    Args:
        pool_size: Size of the pooling window: an int, or a tuple of one int per spatial axis.
        strides: Step of the window (an int or a tuple); None means ``pool_size``.
        padding: 'valid' (windows inside the input only) or 'same' (padded so that the output
            has ``ceil(size / strides)`` steps per axis).
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
        name: Name of the layer; None derives a unique one from the class name.
    """

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding="valid", data_format=None,
                 name=None, **kwargs):
        super().__init__(pool_size, strides, pool_dimensions=3, pool_mode="max",
                         padding=padding, data_format=data_format, name=name, **kwargs)

    def call(self, inputs):
        self.compute_output_shape(inputs.shape)          # errors name the layer
        x = cu.to_channels_last(inputs, self.data_format)
        y = pool3d(x, self.pool_mode, self.pool_size, self.strides, self.padding)
        return cu.from_channels_last(y, self.data_format)
