"""``GlobalAveragePooling1D``: the mean over the steps of a sequence, masked steps left out."""
from __future__ import annotations

from ... import ops
from .base_global_pooling import BaseGlobalPooling


class GlobalAveragePooling1D(BaseGlobalPooling):
    """Global average pooling of (batch, steps, channels) (Keras 3's
    ``GlobalAveragePooling1D``).

    With a mask (batch, steps) (e.g. from ``Embedding(mask_zero=True)``) the mean is over
    the unmasked steps only, as in Keras; the output carries no mask.
    """

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(pool_dimensions=1, data_format=data_format, keepdims=keepdims,
                         **kwargs)
        self.supports_masking = True

    def call(self, inputs, mask=None):
        axis = self.spatial_axes
        if mask is None:
            return ops.mean(inputs, axis=axis, keepdims=self.keepdims)
        channel_axis = 1 if self.data_format == "channels_first" else 2
        keep = ops.expand_dims(ops.cast(mask, "bool"), channel_axis)
        total = ops.sum(ops.where(keep, inputs, 0.0), axis=axis, keepdims=self.keepdims)
        count = ops.sum(ops.cast(keep, inputs.dtype), axis=axis, keepdims=self.keepdims)
        return ops.divide(total, count)

    def compute_mask(self, inputs, mask=None):
        return None
