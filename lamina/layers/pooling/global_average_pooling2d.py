"""``GlobalAveragePooling2D``: the mean over every pixel of an image, per channel."""
from __future__ import annotations

from ... import ops
from .base_global_pooling import BaseGlobalPooling


class GlobalAveragePooling2D(BaseGlobalPooling):
    """Global average pooling (Keras 3's ``GlobalAveragePooling2D``): (batch, channels)
    out, or with ``keepdims=True`` spatial sizes of 1.

    Args:
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
        keepdims: Whether to keep the pooled spatial axes, with size 1.

    Example:

    >>> lamina.layers.GlobalAveragePooling2D()(np.ones((2, 5, 5, 3))).shape
    (2, 3)
    """

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(pool_dimensions=2, data_format=data_format, keepdims=keepdims,
                         **kwargs)

    def call(self, inputs):
        return ops.mean(inputs, axis=self.spatial_axes, keepdims=self.keepdims)
