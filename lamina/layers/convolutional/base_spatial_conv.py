"""What every convolution layer shares: window geometry, data_format, bias and activation."""
from __future__ import annotations

from ... import activations, constraints, initializers, ops, regularizers
from ..input_spec import InputSpec
from ..layer import Layer
from . import conv_utils as cu


class BaseSpatialConv(Layer):
    """The base of Conv*, Conv*Transpose, DepthwiseConv* and SeparableConv* (private).

    Subclasses create their kernels in :meth:`build_kernels`, convolve a channels-last
    input in :meth:`convolve` and give the number of output channels in
    :meth:`output_channels`; this class adds the bias and the activation, moves a
    channels-first input to channels-last and back, and checks shapes with the layer's name.
    """

    allow_causal = False          # Conv1D accepts padding='causal'

    def __init__(self, rank, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, activation=None, use_bias=True, bias_initializer="zeros",
                 bias_regularizer=None, activity_regularizer=None, bias_constraint=None,
                 **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        name = self.name
        self.rank = rank
        self.kernel_size = cu.standardize_tuple(name, "kernel_size", kernel_size, rank)
        self.strides = cu.standardize_tuple(name, "strides", strides, rank)
        self.dilation_rate = cu.standardize_tuple(name, "dilation_rate", dilation_rate, rank)
        self.padding = cu.standardize_padding(name, padding, allow_causal=self.allow_causal)
        self.data_format = cu.standardize_data_format(name, data_format)
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(f"{name}: strides > 1 cannot be combined with dilation_rate > 1 "
                             f"(as in Keras); received strides={self.strides} and "
                             f"dilation_rate={self.dilation_rate} (`strides > 1` not "
                             f"supported in conjunction with `dilation_rate > 1`. Received: "
                             f"strides={self.strides} and dilation_rate={self.dilation_rate})")
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self._set_weight_arguments("bias", bias_initializer, bias_regularizer, bias_constraint)
        self.input_spec = InputSpec.described(cu.layout(rank, self.data_format), ndim=rank + 2)

    # ------------------------------------------------------------------ subclass hooks
    def build_kernels(self, channels: int) -> None:
        raise NotImplementedError

    def convolve(self, x):
        """The convolution of a channels-last input, without bias or activation."""
        raise NotImplementedError

    def output_channels(self, channels):
        raise NotImplementedError

    def output_length(self, size, axis: int):
        return cu.conv_output_length(size, self.kernel_size[axis], self.strides[axis],
                                     self.dilation_rate[axis], self.padding)

    def check_channels(self, channels: int, input_shape) -> None:
        """Raise when the input's channel count does not suit the layer (e.g. groups)."""

    # ------------------------------------------------------------------ weights
    def _set_weight_arguments(self, prefix, initializer, regularizer, constraint) -> None:
        setattr(self, f"{prefix}_initializer", initializers.get(initializer))
        setattr(self, f"{prefix}_regularizer", regularizers.get(regularizer))
        setattr(self, f"{prefix}_constraint", constraints.get(constraint))

    def _weight_config(self, prefix) -> dict:
        return {f"{prefix}_initializer": initializers.serialize(
                    getattr(self, f"{prefix}_initializer")),
                f"{prefix}_regularizer": regularizers.serialize(
                    getattr(self, f"{prefix}_regularizer")),
                f"{prefix}_constraint": constraints.serialize(
                    getattr(self, f"{prefix}_constraint"))}

    def _add_weight_from(self, prefix, name, shape):
        """A weight configured by the ``<prefix>_initializer/regularizer/constraint`` args."""
        return self.add_weight(shape=shape, name=name,
                               initializer=getattr(self, f"{prefix}_initializer"),
                               regularizer=getattr(self, f"{prefix}_regularizer"),
                               constraint=getattr(self, f"{prefix}_constraint"))

    # ------------------------------------------------------------------ the contract
    def build(self, input_shape):
        input_shape = tuple(input_shape)
        axis = cu.channel_axis(self.data_format)
        channels = input_shape[axis]
        if channels is None:
            raise ValueError(f"{self.name}: the channel dimension of the input must be known "
                             f"to build the layer; received shape {input_shape}")
        self.check_channels(channels, input_shape)
        self.compute_output_shape(input_shape)            # the window must fit the input
        self.build_kernels(channels)
        self.bias = None
        if self.use_bias:
            self.bias = self._add_weight_from("bias", "bias",
                                              (self.output_channels(channels),))
        self.input_spec = InputSpec.described(cu.layout(self.rank, self.data_format),
                                              ndim=self.rank + 2, axes={axis: channels})

    def call(self, inputs):
        x = cu.to_channels_last(inputs, self.data_format)
        y = self.convolve(x)
        if self.bias is not None:
            y = ops.add(y, self.bias)
        return self.activation(cu.from_channels_last(y, self.data_format))

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        spatial = cu.spatial_dims(input_shape, self.data_format)
        out = tuple(self.output_length(size, axis) for axis, size in enumerate(spatial))
        span = tuple((k - 1) * d + 1 for k, d in zip(self.kernel_size, self.dilation_rate))
        cu.check_window_fits(self.name, "dilated kernel", input_shape, self.data_format,
                             span, out, self.padding)
        channels = input_shape[cu.channel_axis(self.data_format)]
        return cu.with_spatial(input_shape[0], out, self.output_channels(channels),
                               self.data_format)

    def get_config(self) -> dict:
        return {**super().get_config(), "kernel_size": self.kernel_size,
                "strides": self.strides, "padding": self.padding,
                "data_format": self.data_format, "dilation_rate": self.dilation_rate,
                "activation": activations.serialize(self.activation),
                "use_bias": self.use_bias, **self._weight_config("bias"),
                "activity_regularizer": regularizers.serialize(self.activity_regularizer)}
