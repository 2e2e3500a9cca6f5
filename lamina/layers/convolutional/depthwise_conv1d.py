"""``DepthwiseConv1D``: a depthwise 1-D convolution over (batch, steps, channels)."""
from __future__ import annotations

from .base_depthwise_conv import BaseDepthwiseConv


class DepthwiseConv1D(BaseDepthwiseConv):
    """Depthwise 1-D convolution (Keras 3's ``DepthwiseConv1D``): each input channel is convolved
    with its own ``depth_multiplier`` filters.

    Weights: ``kernel`` (*kernel_size, in_channels, depth_multiplier) (Keras 2 called it
    ``depthwise_kernel``), ``bias`` (in_channels * depth_multiplier,).
    """

    def __init__(self, kernel_size, strides=1, padding="valid", depth_multiplier=1,
                 data_format=None, dilation_rate=1, activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(1, depth_multiplier, kernel_size, strides=strides,
                         padding=padding, data_format=data_format,
                         dilation_rate=dilation_rate, activation=activation,
                         use_bias=use_bias, depthwise_initializer=depthwise_initializer,
                         bias_initializer=bias_initializer,
                         depthwise_regularizer=depthwise_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         depthwise_constraint=depthwise_constraint,
                         bias_constraint=bias_constraint, **kwargs)
