"""``GlobalAveragePooling1D``: the mean over the steps of a sequence, masked steps left out."""
from __future__ import annotations

from ... import ops
from ...errors import describe_shape
from .base_global_pooling import BaseGlobalPooling


class GlobalAveragePooling1D(BaseGlobalPooling):
    """Global average pooling of (batch, steps, channels) (Keras 3's
    ``GlobalAveragePooling1D``).

    With a mask (batch, steps) (e.g. from ``Embedding(mask_zero=True)``) the mean is over
    the unmasked steps only, as in Keras; the output carries no mask.

    Args:
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
        keepdims: Whether to keep the pooled spatial axes, with size 1.
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
        steps = inputs.shape[axis[0]]
        if len(mask.shape) != 2 or None not in (mask.shape[1], steps) and \
                mask.shape[1] != steps:
            raise ValueError(
                f"{self.name}: the mask must have shape (batch, steps) with the {steps} steps "
                f"of axis {axis[0]} (data_format={self.data_format!r}); received a mask of "
                f"shape {describe_shape(mask.shape)} for input of shape "
                f"{describe_shape(inputs.shape)} (a mask from an earlier layer marks axis 1: "
                f"use data_format='channels_last' there)")
        keep = ops.expand_dims(ops.cast(mask, "bool"), channel_axis)
        total = ops.sum(ops.where(keep, inputs, 0.0), axis=axis, keepdims=self.keepdims)
        count = ops.sum(ops.cast(keep, inputs.dtype), axis=axis, keepdims=self.keepdims)
        return ops.divide(total, count)

    def compute_mask(self, inputs, mask=None):
        return None
