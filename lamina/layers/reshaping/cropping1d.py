"""``Cropping1D``: values removed from the start and end of the steps axis."""
from __future__ import annotations

from ..input_spec import InputSpec
from ..layer import Layer
from .spatial import crop, int_tuple, layout, resized_shape


class Cropping1D(Layer):
    """Crops the steps axis of a (batch, steps, features) input (Keras 3's ``Cropping1D``).

    ``cropping``: an int (the same at both ends) or a pair ``(start, end)``.

    Args:
        cropping: Steps cropped: an int (both ends) or a pair ``(start, end)``.
    """

    def __init__(self, cropping=(1, 1), **kwargs):
        super().__init__(**kwargs)
        self.cropping = int_tuple(self.name, "cropping", cropping, 2, allow_zero=True)
        self.input_spec = InputSpec.described(layout(1, "channels_last"), ndim=3)

    def call(self, inputs):
        return crop(self.name, inputs, (self.cropping,), "channels_last")

    def compute_output_shape(self, input_shape):
        return resized_shape(input_shape, (self.cropping,), "channels_last", -1)

    def get_config(self) -> dict:
        return {**super().get_config(), "cropping": self.cropping}
