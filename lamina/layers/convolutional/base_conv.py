"""The base of ``Conv1D``, ``Conv2D`` and ``Conv3D``: ``filters`` kernels over ``groups``
channel groups."""
from __future__ import annotations

from ... import ops
from ..lora import LoraMixin, adapted_weight
from . import conv_utils as cu
from .base_spatial_conv import BaseSpatialConv


class BaseConv(LoraMixin, BaseSpatialConv):
    """An N-D convolution (private; Keras's ``BaseConv``).

    Weights: ``kernel`` (*kernel_size, in_channels // groups, filters) and ``bias``
    (filters,). Each of the ``groups`` groups of input channels is convolved with its own
    ``filters // groups`` filters. ``lora_rank`` (or ``enable_lora(rank)``) adapts the
    kernel by LoRA (``lora.py``).
    """

    kernel = adapted_weight("kernel", "The kernel, with LoRA's update once it is enabled.")

    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid",
                 data_format=None, dilation_rate=1, groups=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, lora_rank=None,
                 lora_alpha=None, **kwargs):
        super().__init__(rank, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         bias_initializer=bias_initializer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         bias_constraint=bias_constraint, **kwargs)
        self.filters = cu.positive_int(self.name, "filters", filters)
        self.groups = cu.positive_int(
            self.name, "groups", groups,
            f"The number of groups must be a positive integer. Received: groups={groups!r}.")
        if filters % groups:
            raise ValueError(f"{self.name}: argument 'groups' must divide 'filters'; "
                             f"received groups={groups}, filters={filters} (The number of "
                             f"filters must be evenly divisible by the number of groups. "
                             f"Received: groups={groups}, filters={filters}.)")
        self._set_weight_arguments("kernel", kernel_initializer, kernel_regularizer,
                                   kernel_constraint)
        self._init_lora(lora_rank, lora_alpha)

    def check_channels(self, channels, input_shape):
        if channels % self.groups:
            raise ValueError(f"{self.name}: argument 'groups' ({self.groups}) must divide "
                             f"the input's {channels} channels; received input shape "
                             f"{tuple(input_shape)}")

    def build_kernels(self, channels):
        shape = self.kernel_size + (channels // self.groups, self.filters)
        self.kernel = self._add_weight_from("kernel", "kernel", shape)

    def output_channels(self, channels):
        return self.filters

    def convolve(self, x):
        """``x`` (channels-last) convolved with the kernel, through ``convolution_op`` when a
        subclass overrides it."""
        if type(self).convolution_op is BaseConv.convolution_op:
            return self._conv(x, self.kernel)
        y = self.convolution_op(cu.from_channels_last(x, self.data_format), self.kernel)
        return cu.to_channels_last(y, self.data_format)

    def convolution_op(self, inputs, kernel):
        """Keras's hook for custom convolutions (weight standardization, ...): ``inputs``
        (in the layer's ``data_format``) convolved with ``kernel`` using the layer's strides,
        padding, dilation and groups; ``call`` adds the bias and the activation."""
        y = self._conv(cu.to_channels_last(inputs, self.data_format), kernel)
        return cu.from_channels_last(y, self.data_format)

    def _conv(self, x, kernel):
        conv = ops.conv1d if self.rank == 1 else ops.conv2d
        return conv(x, kernel, strides=self.strides, padding=self.padding,
                    dilation_rate=self.dilation_rate, groups=self.groups)

    def build(self, input_shape):
        super().build(input_shape)
        self._build_lora()

    def get_config(self) -> dict:
        return {**super().get_config(), "filters": self.filters, "groups": self.groups,
                **self._weight_config("kernel"), **self._lora_config()}
