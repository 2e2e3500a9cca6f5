"""``Identity``: returns its input unchanged."""
from __future__ import annotations

from ..layer import Layer


class Identity(Layer):
    """A placeholder layer that returns its input(s) unchanged (Keras 3's ``Identity``);
    masks pass through."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self._build_at_init()

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self) -> dict:
        return super().get_config()
