"""``ReLU``: Keras 3's rectified linear unit layer (capped, leaky and thresholded)."""
from __future__ import annotations

import math
import numbers

from ...activations import relu
from ...errors import ArgumentTypeError
from ..layer import Layer


def check_non_negative(layer: Layer, arg: str, value, allow_none: bool = False,
                       keras_phrase: str = ""):
    """A non-negative, finite number (or None where allowed), else an error naming it
    (an ArgumentTypeError, both TypeError and Keras's ValueError, for a non-number).
    ``keras_phrase`` is Keras's wording of the rule, appended so both are served."""
    suffix = f" ({keras_phrase})" if keras_phrase else ""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        expected = "a non-negative number" + (" or None" if allow_none else "")
        raise ArgumentTypeError(f"{layer.name}: argument '{arg}' must be {expected}; "
                                f"received {value!r}{suffix}")
    if math.isnan(value) or math.isinf(value) or value < 0:
        raise ValueError(f"{layer.name}: argument '{arg}' must be a non-negative, finite "
                         f"number; received {value!r}{suffix}")
    return value


class ReLU(Layer):
    """``max_value`` for ``x >= max_value``, ``x`` for ``threshold <= x < max_value`` and
    ``negative_slope * (x - threshold)`` below ``threshold`` (Keras 3's ``ReLU``).

    Args:
        max_value: Largest output value; None: no upper limit.
        negative_slope: Slope below ``threshold``.
        threshold: Input value below which the negative slope applies.
    """

    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        self.max_value = check_non_negative(
            self, "max_value", max_value, allow_none=True,
            keras_phrase="max_value of a ReLU layer cannot be a negative value")
        self.negative_slope = check_non_negative(
            self, "negative_slope", negative_slope,
            keras_phrase="negative_slope of a ReLU layer cannot be None or a negative value")
        self.threshold = check_non_negative(
            self, "threshold", threshold,
            keras_phrase="threshold of a ReLU layer cannot be None or a negative value")
        self.supports_masking = True
        self._build_at_init()

    def call(self, inputs):
        return relu(inputs, negative_slope=self.negative_slope, max_value=self.max_value,
                    threshold=self.threshold)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "max_value": self.max_value,
                "negative_slope": self.negative_slope, "threshold": self.threshold}
