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

    Args:
        filters: Number of output channels (filters).
        kernel_size: Size of the convolution window: an int, or a tuple of one int per spatial
            axis.
        strides: Step of the window along each spatial axis: an int or a tuple.
        padding: 'valid' (no padding) or 'same' (zeros around the input so that the output has
            ``ceil(size / strides)`` steps per axis).
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
        dilation_rate: Spacing between the window's taps (an int or a tuple); 1 is a dense
            window.
        groups: Number of groups the input channels are split into, each convolved with
            ``filters // groups`` filters; input channels and ``filters`` must both be divisible
            by it.
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
