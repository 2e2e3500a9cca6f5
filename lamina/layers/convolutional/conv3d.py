"""``Conv3D``: a 3-D convolution over (batch, depth, height, width, channels) volumes."""
from __future__ import annotations

from ... import ops
from . import conv_utils as cu
from .base_conv import BaseConv


class Conv3D(BaseConv):
    """3-D convolution (Keras 3's ``Conv3D``).

    'same' padding follows TensorFlow: ``ceil(size / stride)`` outputs, any odd padding
    element after the input. Weights: ``kernel`` (kd, kh, kw, in_channels // groups,
    filters), ``bias`` (filters,). Computed as a sum over the depth taps of 2-D
    convolutions of depth slices.
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

    def convolve(self, x):
        return conv3d(x, self.kernel, self.strides, self.padding, self.dilation_rate,
                      self.groups)


def conv3d(x, kernel, strides, padding, dilation_rate, groups):
    """NDHWC ``x`` convolved with a DHWIO ``kernel``: for each depth tap ``i``, the depth
    slices that tap sees go through ``conv2d`` with ``kernel[i]``; the taps are summed."""
    depth = x.shape[1]
    kd = kernel.shape[0]
    sd, dd = strides[0], dilation_rate[0]
    span = (kd - 1) * dd + 1
    out_depth = cu.conv_output_length(depth, kd, sd, dd, padding)
    if padding == "same":
        total = max((out_depth - 1) * sd + span - depth, 0)
        x = ops.pad(x, ((0, 0), (total // 2, total - total // 2), (0, 0), (0, 0), (0, 0)))
    _, _, height, width, channels = x.shape
    y = None
    for i in range(kd):
        start = i * dd
        taps = x[:, start:start + (out_depth - 1) * sd + 1:sd]      # (B, out_depth, H, W, C)
        images = ops.reshape(taps, (-1, height, width, channels))
        z = ops.conv2d(images, kernel[i], strides=strides[1:], padding=padding,
                       dilation_rate=dilation_rate[1:], groups=groups)
        y = z if y is None else ops.add(y, z)
    return ops.reshape(y, (-1, out_depth, *y.shape[1:]))
