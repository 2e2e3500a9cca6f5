"""``ELU``: ``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` below (Keras 3's layer)."""
from __future__ import annotations

import math
import numbers

from ... import ops
from ..layer import Layer


class ELU(Layer):
    """Keras 3's ``ELU`` layer.

    Args:
        alpha: Scale of the negative part: ``alpha * (exp(x) - 1)`` for ``x < 0``.
    """

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or \
                math.isnan(alpha) or math.isinf(alpha):
            raise ValueError(f"{self.name}: argument 'alpha' must be a finite number; "
                             f"received {alpha!r}")
        self.alpha = alpha
        self.supports_masking = True
        self._build_at_init()

    def call(self, inputs):
        return ops.elu(inputs, alpha=self.alpha)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "alpha": self.alpha}
