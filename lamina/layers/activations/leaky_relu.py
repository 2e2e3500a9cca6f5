"""``LeakyReLU``: ``x`` for ``x >= 0``, ``negative_slope * x`` below (Keras 3's layer)."""
from __future__ import annotations

import warnings

from ... import ops
from ..layer import Layer
from .relu import check_non_negative


class LeakyReLU(Layer):
    """Keras 3's ``LeakyReLU`` (default slope 0.3, where ``keras.activations.leaky_relu``
    uses 0.2). Keras 2's argument name ``alpha`` is accepted, with a warning.

    Args:
        negative_slope: Slope for ``x < 0`` (default 0.3).
    """

    def __init__(self, negative_slope=0.3, **kwargs):
        if "alpha" in kwargs:
            negative_slope = kwargs.pop("alpha")
            warnings.warn("LeakyReLU: argument 'alpha' is deprecated; use 'negative_slope'",
                          DeprecationWarning, stacklevel=2)
        super().__init__(**kwargs)
        self.negative_slope = check_non_negative(
            self, "negative_slope", negative_slope,
            keras_phrase="The negative_slope value of a Leaky ReLU layer cannot be None")
        self.supports_masking = True
        self._build_at_init()

    def call(self, inputs):
        return ops.leaky_relu(inputs, negative_slope=self.negative_slope)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "negative_slope": self.negative_slope}
