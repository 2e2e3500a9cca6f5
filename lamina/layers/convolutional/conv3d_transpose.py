"""``Conv3DTranspose``: the transposed 3-D convolution over volumes."""
from __future__ import annotations

from ... import ops
from .base_conv_transpose import BaseConvTranspose


class Conv3DTranspose(BaseConvTranspose):
    """Transposed 3-D convolution (Keras 3's ``Conv3DTranspose``), e.g. to upsample volumes.

    Weights: ``kernel`` (kd, kh, kw, filters, in_channels), ``bias`` (filters,). The output
    size per axis is Keras's (see :class:`BaseConvTranspose`). One
    ``conv3d_backprop_input`` op (oneDNN's 3-D backward-data convolution on the CPU).
    """

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid",
                 data_format=None, output_padding=None, dilation_rate=(1, 1, 1),
                 activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 **kwargs):
        super().__init__(3, filters, kernel_size, strides=strides, padding=padding,
                         output_padding=output_padding, data_format=data_format,
                         dilation_rate=dilation_rate, activation=activation,
                         use_bias=use_bias, kernel_initializer=kernel_initializer,
                         bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                         **kwargs)

    def convolve(self, x):
        return ops.conv3d_transpose(x, self.kernel, self.strides, self.padding,
                                    self.output_padding, self.dilation_rate)
