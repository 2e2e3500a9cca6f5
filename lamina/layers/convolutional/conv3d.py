"""``Conv3D``: a 3-D convolution over (batch, depth, height, width, channels) volumes."""
from __future__ import annotations

from ... import ops
from .base_conv import BaseConv


class Conv3D(BaseConv):
    """3-D convolution (Keras 3's ``Conv3D``).

    'same' padding follows TensorFlow: ``ceil(size / stride)`` outputs, any odd padding
    element after the input. Weights: ``kernel`` (kd, kh, kw, in_channels // groups,
    filters), ``bias`` (filters,). One ``conv3d`` op (oneDNN's 3-D convolution on the
    CPU).
    """

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid",
                 data_format=None, dilation_rate=(1, 1, 1), groups=1, activation=None,
                 use_bias=True, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(3, filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate, groups=groups,
                         activation=activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer,
                         bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                         **kwargs)

    def _conv(self, x, kernel):
        return ops.conv3d(x, kernel, self.strides, self.padding, self.dilation_rate,
                          self.groups)
