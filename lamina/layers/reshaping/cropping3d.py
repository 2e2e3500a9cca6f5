"""``Cropping3D``: values removed at both ends of the depth, height and width axes."""
from __future__ import annotations

from ..input_spec import InputSpec
from ..layer import Layer
from .spatial import crop, int_pairs, layout, resized_shape, standardize_data_format


class Cropping3D(Layer):
    """Crops the three spatial axes of a 5-D input (Keras 3's ``Cropping3D``).

    ``cropping``: an int, three ints (symmetric per axis) or three ``(before, after)``
    pairs.

    Args:
        cropping: An int, three ints (symmetric per axis) or three ``(before, after)`` pairs.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
    """

    def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(self.name, data_format)
        self.cropping = int_pairs(self.name, "cropping", cropping, 3)
        self.input_spec = InputSpec.described(layout(3, self.data_format), ndim=5)

    def call(self, inputs):
        return crop(self.name, inputs, self.cropping, self.data_format)

    def compute_output_shape(self, input_shape):
        return resized_shape(input_shape, self.cropping, self.data_format, -1)

    def get_config(self) -> dict:
        return {**super().get_config(), "cropping": self.cropping,
                "data_format": self.data_format}
