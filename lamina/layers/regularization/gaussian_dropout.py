"""``GaussianDropout``: multiply by 1-centred normal noise while training (Keras 3's layer)."""
from __future__ import annotations

import math

from ... import ops, random
from ..layer import Layer
from .dropout import check_rate, is_concrete, make_seed_generator


class GaussianDropout(Layer):
    """When ``training``, ``inputs * N(1, rate / (1 - rate))`` (the variance of inverted
    dropout with the same ``rate``); otherwise the inputs unchanged.

    Args:
        rate: Drop probability ``p``: the multiplicative noise has variance ``p / (1 - p)``.
        seed: Integer seed of the layer's random draws; None draws a random seed.
    """

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.rate = check_rate(self, rate)
        self.seed = seed
        self.seed_generator = make_seed_generator(self, seed, rate > 0)
        self.supports_masking = True
        self._build_at_init()

    def call(self, inputs, training=False):
        if training and self.rate > 0 and is_concrete(inputs):
            stddev = math.sqrt(self.rate / (1.0 - self.rate))
            noise = random.normal(tuple(inputs.shape), mean=1.0, stddev=stddev,
                                  dtype=inputs.dtype, seed=self.seed_generator)
            return ops.multiply(inputs, noise)
        return inputs

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "rate": self.rate, "seed": self.seed}
