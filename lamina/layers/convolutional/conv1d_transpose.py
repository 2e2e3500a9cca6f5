"""``Conv1DTranspose``: the transposed 1-D convolution over (batch, steps, channels)."""
from __future__ import annotations

from .base_conv_transpose import BaseConvTranspose


class Conv1DTranspose(BaseConvTranspose):
    """Transposed 1-D convolution (Keras 3's ``Conv1DTranspose``), e.g. to upsample.

    Weights: ``kernel`` (*kernel_size, filters, in_channels), ``bias`` (filters,). See
    :class:`BaseConvTranspose` for the output size.
    """

    def __init__(self, filters, kernel_size, strides=1, padding="valid",
                 output_padding=None, data_format=None, dilation_rate=1,
                 activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 **kwargs):
        super().__init__(1, filters, kernel_size, strides=strides, padding=padding,
                         output_padding=output_padding, data_format=data_format,
                         dilation_rate=dilation_rate, activation=activation,
                         use_bias=use_bias, kernel_initializer=kernel_initializer,
                         bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                         **kwargs)
