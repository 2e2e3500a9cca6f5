"""``ZeroPadding2D``: zeros added around the height and width axes."""
from __future__ import annotations

from ..input_spec import InputSpec
from ..layer import Layer
from .spatial import int_pairs, layout, pad, resized_shape, standardize_data_format


class ZeroPadding2D(Layer):
    """Pads rows and columns of a 4-D input with zeros (Keras 3's ``ZeroPadding2D``).

    ``padding``: an int (the same on all four sides), a pair ``(rows, cols)`` (symmetric)
    or a pair of pairs ``((top, bottom), (left, right))``.

    Args:
        padding: An int (all four sides), a pair ``(rows, cols)`` or ``((top, bottom), (left,
            right))``.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
    """

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(self.name, data_format)
        self.padding = int_pairs(self.name, "padding", padding, 2)
        self.input_spec = InputSpec.described(layout(2, self.data_format), ndim=4)

    def call(self, inputs):
        return pad(inputs, self.padding, self.data_format)

    def compute_output_shape(self, input_shape):
        return resized_shape(input_shape, self.padding, self.data_format, +1)

    def get_config(self) -> dict:
        return {**super().get_config(), "padding": self.padding,
                "data_format": self.data_format}
