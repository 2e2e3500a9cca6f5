"""``AlphaDropout``: dropout that keeps SELU's self-normalizing mean and variance."""
from __future__ import annotations

from ... import ops, random
from ...errors import ShapeError
from ..layer import Layer
from .dropout import check_noise_shape, check_rate, is_concrete, make_seed_generator

# SELU's constants, to Keras's digits: dropped units take SELU's negative saturation value.
_ALPHA = 1.6732632423543772848170429916717
_SCALE = 1.0507009873554804934193349852946


class AlphaDropout(Layer):
    """Keras 3's ``AlphaDropout``: when ``training``, units are kept where a uniform draw is
    ``>= rate``, dropped ones are set to ``-alpha * scale`` of SELU, and the result
    ``a * x + b`` has the inputs' mean and variance (for standard-normal inputs).

    Args:
        rate: Fraction of the input units to drop, a float in [0, 1).
        noise_shape: Shape of the drop mask, broadcast against the input; None: the input's
            shape.
        seed: Integer seed of the layer's random draws; None draws a random seed.
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
        if not (training and self.rate > 0 and is_concrete(inputs)):
            return inputs
        noise_shape = self._mask_shape(tuple(inputs.shape))
        uniform = random.uniform(noise_shape, seed=self.seed_generator)
        kept = ops.cast(ops.greater_equal(uniform, self.rate), inputs.dtype)
        alpha_p = -_ALPHA * _SCALE
        a = ((1 - self.rate) * (1 + self.rate * alpha_p ** 2)) ** -0.5
        b = -a * alpha_p * self.rate
        x = ops.add(ops.multiply(inputs, kept), ops.multiply(ops.subtract(1.0, kept), alpha_p))
        return ops.add(ops.multiply(x, a), b)

    def _mask_shape(self, shape):
        """``noise_shape`` with None entries filled from ``shape``; every entry must be
        1 or the input's size, else the mask would broadcast the output to a new shape."""
        if self.noise_shape is None:
            return shape
        dims = tuple(size if d is None else d for d, size in zip(self.noise_shape, shape))
        if len(self.noise_shape) != len(shape) or any(
                d not in (1, size) for d, size in zip(dims, shape)):
            raise ShapeError(f"{self.name}: argument 'noise_shape' must have one entry per "
                             f"dimension of the input, each 1, None or the input's size; "
                             f"received noise_shape {self.noise_shape!r} for input shape "
                             f"{shape}")
        return dims

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "rate": self.rate, "seed": self.seed,
                "noise_shape": self.noise_shape}
