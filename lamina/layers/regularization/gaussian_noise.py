"""``GaussianNoise``: add zero-mean normal noise while training (Keras 3's layer)."""
from __future__ import annotations

import math
import numbers

from ... import ops, random
from ..layer import Layer
from .dropout import is_concrete, make_seed_generator


class GaussianNoise(Layer):
    """When ``training``, ``inputs + N(0, stddev**2)`` drawn from the layer's own
    ``SeedGenerator(seed)``; otherwise the inputs unchanged.

    Args:
        stddev: Standard deviation of the added noise.
        seed: Integer seed of the layer's random draws; None draws a random seed.
    """

    def __init__(self, stddev, seed=None, **kwargs):
        super().__init__(**kwargs)
        if isinstance(stddev, bool) or not isinstance(stddev, numbers.Real) or \
                math.isnan(stddev) or math.isinf(stddev) or stddev < 0:
            raise ValueError(f"{self.name}: argument 'stddev' must be a non-negative, finite "
                             f"number; received {stddev!r}")
        self.stddev = stddev
        self.seed = seed
        self.seed_generator = make_seed_generator(self, seed, stddev > 0)
        self.supports_masking = True
        self._build_at_init()

    def call(self, inputs, training=False):
        if training and self.stddev > 0 and is_concrete(inputs):
            noise = random.normal(tuple(inputs.shape), stddev=self.stddev, dtype=inputs.dtype,
                                  seed=self.seed_generator)
            return ops.add(inputs, noise)
        return inputs

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "stddev": self.stddev, "seed": self.seed}
