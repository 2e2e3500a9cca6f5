"""The base of ``SeparableConv1D`` and ``SeparableConv2D``: depthwise, then pointwise."""
from __future__ import annotations

from ... import ops
from . import conv_utils as cu
from .base_spatial_conv import BaseSpatialConv


class BaseSeparableConv(BaseSpatialConv):
    """A depthwise convolution followed by a 1x1 convolution (private; Keras's
    ``BaseSeparableConv``). Strides, padding and dilation apply to the depthwise step.

    Weights: ``depthwise_kernel`` (*kernel_size, in_channels, depth_multiplier),
    ``pointwise_kernel`` (*(1,) * rank, in_channels * depth_multiplier, filters), ``bias``
    (filters,).
    """

    def __init__(self, rank, depth_multiplier, filters, kernel_size, strides=1,
                 padding="valid", data_format=None, dilation_rate=1, activation=None,
                 use_bias=True, depthwise_initializer="glorot_uniform",
                 pointwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, pointwise_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, depthwise_constraint=None,
                 pointwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(rank, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         bias_initializer=bias_initializer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         bias_constraint=bias_constraint, **kwargs)
        self.depth_multiplier = cu.positive_int(self.name, "depth_multiplier",
                                                depth_multiplier)
        self.filters = cu.positive_int(self.name, "filters", filters)
        self._set_weight_arguments("depthwise", depthwise_initializer, depthwise_regularizer,
                                   depthwise_constraint)
        self._set_weight_arguments("pointwise", pointwise_initializer, pointwise_regularizer,
                                   pointwise_constraint)

    def build_kernels(self, channels):
        depthwise = self.kernel_size + (channels, self.depth_multiplier)
        pointwise = (1,) * self.rank + (channels * self.depth_multiplier, self.filters)
        self.depthwise_kernel = self._add_weight_from("depthwise", "depthwise_kernel",
                                                      depthwise)
        self.pointwise_kernel = self._add_weight_from("pointwise", "pointwise_kernel",
                                                      pointwise)

    def output_channels(self, channels):
        return self.filters

    def convolve(self, x):
        y = ops.depthwise_conv(x, self.depthwise_kernel, strides=self.strides,
                               padding=self.padding, dilation_rate=self.dilation_rate)
        return ops.conv(y, self.pointwise_kernel)

    def get_config(self) -> dict:
        return {**super().get_config(), "depth_multiplier": self.depth_multiplier,
                "filters": self.filters, **self._weight_config("depthwise"),
                **self._weight_config("pointwise")}
