"""``Cropping2D``: values removed at both ends of the height and width axes."""
from __future__ import annotations

from ..input_spec import InputSpec
from ..layer import Layer
from .spatial import crop, int_pairs, layout, resized_shape, standardize_data_format


class Cropping2D(Layer):
    """Crops rows and columns of a 4-D input (Keras 3's ``Cropping2D``).

    ``cropping``: an int (the same on all four sides), a pair ``(rows, cols)`` (symmetric)
    or a pair of pairs ``((top, bottom), (left, right))``.

    Args:
        cropping: An int (all four sides), a pair ``(rows, cols)`` (symmetric) or ``((top,
            bottom), (left, right))``.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
    """

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(self.name, data_format)
        self.cropping = int_pairs(self.name, "cropping", cropping, 2)
        self.input_spec = InputSpec.described(layout(2, self.data_format), ndim=4)

    def call(self, inputs):
        return crop(self.name, inputs, self.cropping, self.data_format)

    def compute_output_shape(self, input_shape):
        return resized_shape(input_shape, self.cropping, self.data_format, -1)

    def get_config(self) -> dict:
        return {**super().get_config(), "cropping": self.cropping,
                "data_format": self.data_format}
