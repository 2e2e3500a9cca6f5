"""The base of ``DepthwiseConv1D`` and ``DepthwiseConv2D``: one filter set per channel."""
from __future__ import annotations

from ... import ops
from . import conv_utils as cu
from .base_spatial_conv import BaseSpatialConv


class BaseDepthwiseConv(BaseSpatialConv):
    """A depthwise convolution (private; Keras's ``BaseDepthwiseConv``).

    Each input channel ``c`` is convolved with its own ``depth_multiplier`` filters; output
    channel ``c * depth_multiplier + m`` uses ``kernel[..., c, m]``.
    Weights (Keras 3 names): ``kernel`` (*kernel_size, in_channels, depth_multiplier) and
    ``bias`` (in_channels * depth_multiplier,).
    """

    def __init__(self, rank, depth_multiplier, kernel_size, strides=1, padding="valid",
                 data_format=None, dilation_rate=1, activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(rank, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         bias_initializer=bias_initializer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         bias_constraint=bias_constraint, **kwargs)
        self.depth_multiplier = cu.positive_int(self.name, "depth_multiplier",
                                                depth_multiplier)
        self._set_weight_arguments("depthwise", depthwise_initializer, depthwise_regularizer,
                                   depthwise_constraint)

    def build_kernels(self, channels):
        shape = self.kernel_size + (channels, self.depth_multiplier)
        self.kernel = self._add_weight_from("depthwise", "kernel", shape)

    def output_channels(self, channels):
        return None if channels is None else channels * self.depth_multiplier

    def convolve(self, x):
        return ops.depthwise_conv(x, self.kernel, strides=self.strides, padding=self.padding,
                                  dilation_rate=self.dilation_rate)

    def get_config(self) -> dict:
        return {**super().get_config(), "depth_multiplier": self.depth_multiplier,
                **self._weight_config("depthwise")}
