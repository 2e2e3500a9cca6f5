"""``Conv3DTranspose``: the transposed 3-D convolution over volumes."""
from __future__ import annotations

from ... import ops
from ...ops.conv import _transpose_pads
from .base_conv_transpose import BaseConvTranspose


class Conv3DTranspose(BaseConvTranspose):
    """Transposed 3-D convolution (Keras 3's ``Conv3DTranspose``), e.g. to upsample volumes.

    Weights: ``kernel`` (kd, kh, kw, filters, in_channels), ``bias`` (filters,). The output
    size per axis is Keras's (see :class:`BaseConvTranspose`). Computed, like ``Conv3D``,
    from 2-D operations: each depth tap's 2-D transposed convolution of every depth slice,
    scattered to its output depths and summed.
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
        return conv3d_transpose(x, self.kernel, self.strides, self.padding,
                                self.output_padding, self.dilation_rate)


def _spread(z, stride):
    """``z`` (B, D, ...) with ``stride - 1`` zero slices after each depth slice but the
    last: (B, (D - 1) * stride + 1, ...)."""
    if stride == 1:
        return z
    depth = z.shape[1]
    rest = tuple(z.shape[2:])
    slab = ops.expand_dims(z, 2)                                  # (B, D, 1, ...)
    zeros = ops.zeros_like(ops.tile(slab, (1, 1, stride - 1, 1, 1, 1)))
    spread = ops.reshape(ops.concatenate([slab, zeros], axis=2), (-1, depth * stride, *rest))
    return spread[:, :(depth - 1) * stride + 1]


def conv3d_transpose(x, kernel, strides, padding, output_padding, dilation_rate):
    """NDHWC ``x`` transposed-convolved with a (kd, kh, kw, out, in) ``kernel``.

    Depth tap ``i`` of the kernel sends input depth ``d`` to the full-length output depth
    ``d * stride + i * dilation``; Keras's output is a window of that full result that
    starts at the forward convolution's leading pad.
    """
    depth, height, width, channels = x.shape[1:]
    kd = kernel.shape[0]
    sd, dd = strides[0], dilation_rate[0]
    extra = None if output_padding is None else output_padding[0]
    (start, _), grown = _transpose_pads(kd, sd, dd, padding, extra)
    out_depth = (depth - 1) * sd + 1 + grown
    span = (kd - 1) * dd + 1
    full = (depth - 1) * sd + span
    images = ops.reshape(x, (-1, height, width, channels))
    inner_padding = None if output_padding is None else output_padding[1:]
    total = None
    for i in range(kd):
        z = ops.conv2d_transpose(images, kernel[i], strides=strides[1:], padding=padding,
                                 output_padding=inner_padding,
                                 dilation_rate=dilation_rate[1:])
        z = _spread(ops.reshape(z, (-1, depth, *z.shape[1:])), sd)
        before = i * dd
        z = ops.pad(z, ((0, 0), (before, full - before - z.shape[1]), (0, 0), (0, 0),
                        (0, 0)))
        total = z if total is None else ops.add(total, z)
    tail = start + out_depth - full
    if tail > 0:
        total = ops.pad(total, ((0, 0), (0, tail), (0, 0), (0, 0), (0, 0)))
    return total[:, start:start + out_depth]
