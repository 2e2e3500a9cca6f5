"""``UpSampling3D``: each voxel repeated along depth, height and width."""
from __future__ import annotations

from ... import ops
from ..input_spec import InputSpec
from ..layer import Layer
from .spatial import int_tuple, layout, spatial_axes, standardize_data_format


class UpSampling3D(Layer):
    """Repeats the depth, height and width of a 5-D input ``size[i]`` times each
    (Keras 3's ``UpSampling3D``).

    Args:
        size: Factors ``(depth, rows, cols)``, or an int for all three.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
    """

    def __init__(self, size=(2, 2, 2), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(self.name, data_format)
        self.size = int_tuple(self.name, "size", size, 3)
        self.input_spec = InputSpec.described(layout(3, self.data_format), ndim=5)

    def call(self, inputs):
        for axis, factor in zip(spatial_axes(3, self.data_format), self.size):
            inputs = ops.repeat(inputs, factor, axis=axis)
        return inputs

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        for axis, factor in zip(spatial_axes(3, self.data_format), self.size):
            shape[axis] = None if shape[axis] is None else shape[axis] * factor
        return tuple(shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "size": self.size, "data_format": self.data_format}
