"""``RandomRotation``: images rotated about their center by a random angle while training."""
from __future__ import annotations

import math

from ... import ops, random
from .base_image_layer import AffineImageLayer
from .image_utils import factor_range


class RandomRotation(AffineImageLayer):
    """Keras 3's ``RandomRotation``: when ``training``, each image is rotated by an angle
    drawn uniformly from ``[lower, upper] * 2 pi`` (``factor``: a fraction of a full turn,
    a number ``f`` for ``(-f, f)`` or a pair; positive is counter-clockwise), about the
    pixel-grid center ``((width - 1) / 2, (height - 1) / 2)``.

    Args:
        factor: Angle range as a fraction of a full turn: a number ``f`` for ``(-f, f)``, or a
            pair; positive is counter-clockwise.
        fill_mode: How points outside the image are filled: 'constant' (with ``fill_value``),
            'reflect', 'wrap' or 'nearest'.
        interpolation: Interpolation of pixel values between grid points: 'bilinear' or
            'nearest'.
        seed: Integer seed of the layer's random draws; None draws a random seed.
        fill_value: Value of the filled points when ``fill_mode='constant'``.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
    """

    def __init__(self, factor, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, **kwargs):
        super().__init__(fill_mode=fill_mode, interpolation=interpolation, seed=seed,
                         fill_value=fill_value, data_format=data_format, **kwargs)
        self.factor = factor_range(self.name, "factor", factor)

    def coefficients(self, images):
        lower, upper = (f * 2.0 * math.pi for f in self.factor)
        angle = random.uniform((images.shape[0], 1, 1), lower, upper,
                               seed=self.seed_generator)
        return rotation_coefficients(angle, *images.shape[1:3])

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor}


def rotation_coefficients(angle, height: int, width: int):
    """The output-to-input map of a counter-clockwise rotation by ``angle`` (radians)."""
    cos, sin = ops.cos(angle), ops.sin(angle)
    h, w = height - 1.0, width - 1.0
    x_offset = ops.divide(ops.subtract(w, ops.subtract(ops.multiply(cos, w),
                                                       ops.multiply(sin, h))), 2.0)
    y_offset = ops.divide(ops.subtract(h, ops.add(ops.multiply(sin, w),
                                                  ops.multiply(cos, h))), 2.0)
    return cos, ops.negative(sin), x_offset, sin, cos, y_offset
