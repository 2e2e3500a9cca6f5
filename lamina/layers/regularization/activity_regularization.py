"""``ActivityRegularization``: an identity that adds an L1/L2 penalty on its output."""
from __future__ import annotations

import math
import numbers

from ... import regularizers
from ..layer import Layer


class ActivityRegularization(Layer):
    """Keras 3's ``ActivityRegularization``: returns its input and adds
    ``l1 * sum(|x|) + l2 * sum(x**2)`` to ``layer.losses`` (through the base class's
    ``activity_regularizer``, an ``L1L2(l1, l2)``).

    Args:
        l1: L1 factor: adds ``l1 * sum(|x|)`` to the losses.
        l2: L2 factor: adds ``l2 * sum(x ** 2)`` to the losses.
    """

    def __init__(self, l1=0.0, l2=0.0, **kwargs):
        super().__init__(**kwargs)
        for arg, value in (("l1", l1), ("l2", l2)):
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or \
                    math.isnan(value) or math.isinf(value) or value < 0:
                raise ValueError(f"{self.name}: argument '{arg}' must be a non-negative, finite "
                                 f"number; received {value!r}")
        self.activity_regularizer = regularizers.L1L2(l1=l1, l2=l2)
        self.l1 = l1
        self.l2 = l2
        self.supports_masking = True
        self._build_at_init()

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        config = super().get_config()
        config.pop("activity_regularizer", None)     # l1/l2 describe it, as in Keras
        return {**config, "l1": self.l1, "l2": self.l2}
