"""``ZeroPadding1D``: zeros added before and after the steps axis."""
from __future__ import annotations

from ..input_spec import InputSpec
from ..layer import Layer
from .spatial import int_tuple, layout, pad, resized_shape, standardize_data_format


class ZeroPadding1D(Layer):
    """Pads the steps axis of a 3-D input with zeros (Keras 3's ``ZeroPadding1D``).

    ``padding``: an int (the same before and after) or a pair ``(before, after)``.

    Args:
        padding: An int (both ends) or a pair ``(before, after)``.
        data_format: Where the steps axis is: 'channels_last' ``(batch, steps, features)`` or
            'channels_first'; None: the global setting.
    """

    def __init__(self, padding=1, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(self.name, data_format)
        self.padding = int_tuple(self.name, "padding", padding, 2, allow_zero=True)
        self.input_spec = InputSpec.described(layout(1, self.data_format), ndim=3)

    def call(self, inputs):
        return pad(inputs, (self.padding,), self.data_format)

    def compute_output_shape(self, input_shape):
        return resized_shape(input_shape, (self.padding,), self.data_format, +1)

    def get_config(self) -> dict:
        return {**super().get_config(), "padding": self.padding,
                "data_format": self.data_format}
