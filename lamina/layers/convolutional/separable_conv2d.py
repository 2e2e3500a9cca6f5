"""``SeparableConv2D``: a depthwise-separable 2-D convolution over images."""
from __future__ import annotations

from .base_separable_conv import BaseSeparableConv


class SeparableConv2D(BaseSeparableConv):
    """Depthwise-separable 2-D convolution (Keras 3's ``SeparableConv2D``): a depthwise
    convolution, then a pointwise (1x1) one mixing the channels into ``filters`` outputs.

    Weights: ``depthwise_kernel``, ``pointwise_kernel``, ``bias`` (see
    :class:`BaseSeparableConv`).

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
        depth_multiplier: Number of depthwise output channels per input channel.
        activation: Activation applied to the output: a name such as 'relu', or a callable; None
            applies none (linear).
        use_bias: Whether the layer adds a bias vector to its output.
        depthwise_initializer: Initializer of the depthwise kernel.
        pointwise_initializer: Initializer of the pointwise (1x1) kernel.
        bias_initializer: Initializer of the ``bias`` weight.
        depthwise_regularizer: Regularizer of the depthwise kernel, or None.
        pointwise_regularizer: Regularizer of the pointwise kernel, or None.
        bias_regularizer: Regularizer applied to the ``bias``, or None.
        activity_regularizer: Regularizer applied to the layer's output (added to
            ``layer.losses``), or None.
        depthwise_constraint: Constraint of the depthwise kernel, or None.
        pointwise_constraint: Constraint of the pointwise kernel, or None.
        bias_constraint: Constraint applied to the ``bias`` after each optimizer update, or
            None.
    """

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format=None, dilation_rate=(1, 1), depth_multiplier=1, activation=None,
                 use_bias=True, depthwise_initializer="glorot_uniform",
                 pointwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, pointwise_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, depthwise_constraint=None,
                 pointwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(2, depth_multiplier, filters, kernel_size, strides=strides,
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
