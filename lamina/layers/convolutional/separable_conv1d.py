"""``SeparableConv1D``: a depthwise-separable 1-D convolution over (batch, steps, channels)."""
from __future__ import annotations

from .base_separable_conv import BaseSeparableConv


class SeparableConv1D(BaseSeparableConv):
    """Depthwise-separable 1-D convolution (Keras 3's ``SeparableConv1D``): a depthwise
    convolution, then a pointwise (1x1) one mixing the channels into ``filters`` outputs.

    Weights: ``depthwise_kernel``, ``pointwise_kernel``, ``bias`` (see
    :class:`BaseSeparableConv`).
    """

    def __init__(self, filters, kernel_size, strides=1, padding="valid",
                 data_format=None, dilation_rate=1, depth_multiplier=1, activation=None,
                 use_bias=True, depthwise_initializer="glorot_uniform",
                 pointwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, pointwise_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, depthwise_constraint=None,
                 pointwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(1, depth_multiplier, filters, kernel_size, strides=strides,
                         padding=padding, data_format=data_format,
                         dilation_rate=dilation_rate, activation=activation,
                         use_bias=use_bias, depthwise_initializer=depthwise_initializer,
                         pointwise_initializer=pointwise_initializer,
                         bias_initializer=bias_initializer,
                         depthwise_regularizer=depthwise_regularizer,
                         pointwise_regularizer=pointwise_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         depthwise_constraint=depthwise_constraint,
                         pointwise_constraint=pointwise_constraint,
                         bias_constraint=bias_constraint, **kwargs)
