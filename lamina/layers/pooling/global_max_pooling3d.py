"""``GlobalMaxPooling3D``: the max over every voxel of a volume, per channel."""
from __future__ import annotations

from ... import ops
from .base_global_pooling import BaseGlobalPooling


class GlobalMaxPooling3D(BaseGlobalPooling):
    """Global max pooling (Keras 3's ``GlobalMaxPooling3D``): (batch, channels)
    out, or with ``keepdims=True`` spatial sizes of 1.

    Args:
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
        keepdims: Whether to keep the pooled spatial axes, with size 1.
    """

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(pool_dimensions=3, data_format=data_format, keepdims=keepdims,
                         **kwargs)

    def call(self, inputs):
        return ops.max(inputs, axis=self.spatial_axes, keepdims=self.keepdims)
