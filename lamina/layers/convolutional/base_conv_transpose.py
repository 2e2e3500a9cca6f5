"""The base of ``Conv1DTranspose`` and ``Conv2DTranspose``: the adjoint of a convolution."""
from __future__ import annotations

from ... import ops
from . import conv_utils as cu
from .base_spatial_conv import BaseSpatialConv


class BaseConvTranspose(BaseSpatialConv):
    """A transposed ("de-") convolution (private; Keras's ``BaseConvTranspose``).

    The output length per axis is Keras's: with ``output_padding=None``, ``size * stride``
    for 'same' and ``size * stride + max(k_eff - stride, 0)`` for 'valid'; otherwise
    ``(size - 1) * stride + k_eff - 2 * pad + output_padding`` with ``pad = k_eff // 2``
    for 'same' and 0 for 'valid' (``k_eff = (k - 1) * dilation + 1``).
    Weights: ``kernel`` (*kernel_size, filters, in_channels) (outputs before inputs),
    ``bias`` (filters,).
    """

    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid",
                 output_padding=None, data_format=None, dilation_rate=1, activation=None,
                 use_bias=True, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(rank, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         bias_initializer=bias_initializer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         bias_constraint=bias_constraint, **kwargs)
        self.filters = cu.positive_int(self.name, "filters", filters)
        self.output_padding = None
        if output_padding is not None:
            self.output_padding = cu.standardize_tuple(self.name, "output_padding",
                                                       output_padding, rank, allow_zero=True)
            if any(p >= s for p, s in zip(self.output_padding, self.strides)):
                raise ValueError(f"{self.name}: argument 'output_padding' must be smaller "
                                 f"than 'strides' on every axis; received "
                                 f"output_padding={self.output_padding}, "
                                 f"strides={self.strides} (`output_padding` must be strictly "
                                 f"less than `strides` for all dimensions)")
        self._set_weight_arguments("kernel", kernel_initializer, kernel_regularizer,
                                   kernel_constraint)

    def build_kernels(self, channels):
        shape = self.kernel_size + (self.filters, channels)
        self.kernel = self._add_weight_from("kernel", "kernel", shape)

    def output_channels(self, channels):
        return self.filters

    def output_length(self, size, axis):
        extra = None if self.output_padding is None else self.output_padding[axis]
        return cu.deconv_output_length(size, self.kernel_size[axis], self.strides[axis],
                                       self.dilation_rate[axis], self.padding, extra)

    def convolve(self, x):
        if self.rank == 2:
            return ops.conv2d_transpose(x, self.kernel, strides=self.strides,
                                        padding=self.padding,
                                        output_padding=self.output_padding,
                                        dilation_rate=self.dilation_rate)
        return ops.conv_transpose(x, self.kernel, strides=self.strides, padding=self.padding,
                                  output_padding=self.output_padding,
                                  dilation_rate=self.dilation_rate)

    def get_config(self) -> dict:
        return {**super().get_config(), "filters": self.filters,
                "output_padding": self.output_padding, **self._weight_config("kernel")}
