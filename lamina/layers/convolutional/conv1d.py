"""``Conv1D``: a 1-D convolution over (batch, steps, channels), with causal padding."""
from __future__ import annotations

from .base_conv import BaseConv


class Conv1D(BaseConv):
    """1-D convolution (Keras 3's ``Conv1D``).

    ``padding`` is 'valid', 'same' or 'causal': ``dilation_rate * (kernel_size - 1)`` zeros
    before the sequence, so output ``t`` depends on inputs up to ``t`` only.
    Weights: ``kernel`` (kernel_size, in_channels // groups, filters), ``bias`` (filters,).
    """

    allow_causal = True

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, groups=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(1, filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate, groups=groups,
                         activation=activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer,
                         bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                         **kwargs)
