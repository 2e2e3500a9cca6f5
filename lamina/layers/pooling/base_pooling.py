"""The base of the max and average pooling layers."""
from __future__ import annotations

from ... import ops
from ..convolutional import conv_utils as cu
from ..input_spec import InputSpec
from ..layer import Layer


class BasePooling(Layer):
    """Max or average over sliding windows (private; Keras's ``BasePooling``).

    ``strides=None`` means ``pool_size``. 'same' padding follows TensorFlow
    (``ceil(size / stride)`` outputs, the odd padding element after); max pooling never
    picks a padded element and average pooling divides by the real elements of a window.
    """

    def __init__(self, pool_size, strides, pool_dimensions, pool_mode="max",
                 padding="valid", data_format=None, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.pool_size = cu.standardize_tuple(self.name, "pool_size", pool_size,
                                              pool_dimensions)
        self.strides = self.pool_size if strides is None else cu.standardize_tuple(
            self.name, "strides", strides, pool_dimensions)
        self.pool_mode = pool_mode
        self.padding = cu.standardize_padding(self.name, padding)
        self.data_format = cu.standardize_data_format(self.name, data_format)
        self.rank = pool_dimensions
        self.input_spec = InputSpec.described(cu.layout(pool_dimensions, self.data_format),
                                              ndim=pool_dimensions + 2)
        self._build_at_init()           # stateless: built now unless a subclass builds

    def call(self, inputs):
        self.compute_output_shape(inputs.shape)          # errors name the layer
        x = cu.to_channels_last(inputs, self.data_format)
        pool = ops.max_pool if self.pool_mode == "max" else ops.average_pool
        y = pool(x, self.pool_size, strides=self.strides, padding=self.padding)
        return cu.from_channels_last(y, self.data_format)

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        spatial = cu.spatial_dims(input_shape, self.data_format)
        out = tuple(cu.conv_output_length(size, k, s, 1, self.padding)
                    for size, k, s in zip(spatial, self.pool_size, self.strides))
        cu.check_window_fits(self.name, "pool_size", input_shape, self.data_format,
                             self.pool_size, out, self.padding)
        channels = input_shape[cu.channel_axis(self.data_format)]
        return cu.with_spatial(input_shape[0], out, channels, self.data_format)

    def get_config(self) -> dict:
        return {**super().get_config(), "pool_size": self.pool_size, "padding": self.padding,
                "strides": self.strides, "data_format": self.data_format}
