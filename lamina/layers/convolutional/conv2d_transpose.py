"""``Conv2DTranspose``: the transposed 2-D convolution over images."""
from __future__ import annotations

from .base_conv_transpose import BaseConvTranspose


class Conv2DTranspose(BaseConvTranspose):
    """Transposed 2-D convolution (Keras 3's ``Conv2DTranspose``), e.g. to upsample.

    Weights: ``kernel`` (*kernel_size, filters, in_channels), ``bias`` (filters,). See
    :class:`BaseConvTranspose` for the output size.

    Args:
        filters: Number of output channels (filters).
        kernel_size: Size of the convolution window: an int, or a tuple of one int per spatial
            axis.
        strides: Step of the window along each spatial axis: an int or a tuple.
        padding: 'valid' or 'same' (the output is the input size times ``strides``).
        output_padding: Extra rows added at the end of each spatial axis of the output (an int
            or tuple, each smaller than the stride), to choose among the sizes that map back to
            the input size; None infers the output size.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
        dilation_rate: Spacing between the window's taps (an int or a tuple); 1 is a dense
            window.
        activation: Activation applied to the output: a name such as 'relu', or a callable; None
            applies none (linear).
        use_bias: Whether the layer adds a bias vector to its output.
        kernel_initializer: Initializer of the ``kernel`` weight (a name, instance or callable).
        bias_initializer: Initializer of the ``bias`` weight.
        kernel_regularizer: Regularizer applied to the ``kernel`` (added to ``layer.losses``),
            or None.
        bias_regularizer: Regularizer applied to the ``bias``, or None.
        activity_regularizer: Regularizer applied to the layer's output (added to
            ``layer.losses``), or None.
        kernel_constraint: Constraint applied to the ``kernel`` after each optimizer update, or
            None.
        bias_constraint: Constraint applied to the ``bias`` after each optimizer update, or
            None.
    """

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 output_padding=None, data_format=None, dilation_rate=(1, 1),
                 activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 **kwargs):
        super().__init__(2, filters, kernel_size, strides=strides, padding=padding,
                         output_padding=output_padding, data_format=data_format,
                         dilation_rate=dilation_rate, activation=activation,
                         use_bias=use_bias, kernel_initializer=kernel_initializer,
                         bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                         **kwargs)
