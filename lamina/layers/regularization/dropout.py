"""``Dropout``: zero a random fraction of the inputs while training (Keras 3's layer)."""
from __future__ import annotations

import math
import numbers

from ... import random
from ...graph.trace import runs_for_real
from ..layer import Layer


def check_rate(layer: Layer, rate, arg: str = "rate") -> float:
    """A drop probability in [0, 1); TypeError / ValueError naming the layer otherwise."""
    if isinstance(rate, bool) or not isinstance(rate, numbers.Real):
        raise TypeError(f"{layer.name}: argument '{arg}' must be a number in [0, 1); "
                        f"received {rate!r}")
    if math.isnan(rate) or not 0 <= rate < 1:
        raise ValueError(f"{layer.name}: argument '{arg}' must be a number in [0, 1); "
                         f"received {rate!r} (Keras: Invalid value received for argument "
                         f"`{arg}`. Expected a float value between 0 and 1.)")
    return rate


def check_noise_shape(layer: Layer, noise_shape):
    """None, or a tuple of positive ints and Nones (None: the input's size there)."""
    if noise_shape is None:
        return None
    dims = tuple(noise_shape) if isinstance(noise_shape, (list, tuple)) else None
    # Keras's phrase for each kind of mistake, after Lamina's sentence
    if dims is None:
        why = "Expected a tuple or list of integers."
    elif any(d is not None and (isinstance(d, bool) or not isinstance(d, numbers.Integral))
             for d in dims):
        why = "Expected all elements to be integers or None."
    elif any(d is not None and d <= 0 for d in dims):
        why = "Expected all dimensions to be positive integers or None."
    else:
        return tuple(None if d is None else int(d) for d in dims)
    raise ValueError(f"{layer.name}: argument 'noise_shape' must be a tuple of positive "
                     f"ints or None; received {noise_shape!r} (Keras: Invalid value received "
                     f"for argument `noise_shape`. {why})")


def make_seed_generator(layer: Layer, seed, active: bool):
    """The layer's own SeedGenerator (None when the layer never draws, as in Keras)."""
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)):
        raise TypeError(f"{layer.name}: argument 'seed' must be an int or None; received "
                        f"{seed!r}")
    return random.SeedGenerator(seed) if active else None


def is_concrete(x) -> bool:
    """True for real tensors and while a graph is traced; shape-only symbolic calls (the
    functional API) draw nothing."""
    return runs_for_real(x)


class Dropout(Layer):
    """Keras 3's ``Dropout``: when ``training``, each element (or each slice, with
    ``noise_shape``) is zeroed with probability ``rate`` and the rest are scaled by
    ``1 / (1 - rate)``; otherwise the inputs pass unchanged. Draws come from the layer's
    own ``SeedGenerator(seed)``, so a seeded layer drops the same units in every program.

    Args:
        rate: Fraction of the input units to drop, a float in [0, 1).
        noise_shape: Shape of the binary drop mask, broadcast against the input (e.g. ``(batch,
            1, features)`` drops the same features at every step); None: the input's shape.
        seed: Integer seed of the layer's random draws; None draws a random seed.

    Example:

    >>> layer = lamina.layers.Dropout(0.5, seed=1)
    >>> layer(np.ones((2, 2))).numpy()      # inference: unchanged
    array([[1., 1.],
           [1., 1.]], dtype=float32)
    """

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.rate = check_rate(self, rate)
        self.noise_shape = check_noise_shape(self, noise_shape)
        self.seed = seed
        self.seed_generator = make_seed_generator(self, seed, rate > 0)
        self.supports_masking = True
        self._build_at_init()

    def call(self, inputs, training=False):
        if training and self.rate > 0 and is_concrete(inputs):
            return random.dropout(inputs, self.rate, noise_shape=self.noise_shape,
                                  seed=self.seed_generator)
        return inputs

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "rate": self.rate, "seed": self.seed,
                "noise_shape": self.noise_shape}
