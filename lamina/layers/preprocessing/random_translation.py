"""``RandomTranslation``: images shifted by a random amount while training."""
from __future__ import annotations

from ... import ops, random
from .base_image_layer import AffineImageLayer
from .bounding_boxes.affine_boxes import translate_boxes
from .image_utils import factor_range, plain_factor as _plain


class RandomTranslation(AffineImageLayer):
    """Keras 3's ``RandomTranslation``: when ``training``, each image is shifted down by
    a fraction of its height drawn uniformly from ``height_factor`` and right by a fraction
    of its width from ``width_factor`` (a number ``f`` for ``(-f, f)`` or a pair, in
    [-1, 1]; negative values shift up / left); uncovered pixels follow ``fill_mode``.

    Args:
        height_factor: Vertical shift as a fraction of the height: a number ``f`` for ``(-f,
            f)`` or a pair, in [-1, 1].
        width_factor: Horizontal shift as a fraction of the width: a number ``f`` for ``(-f,
            f)`` or a pair, in [-1, 1].
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

    def __init__(self, height_factor, width_factor, fill_mode="reflect",
                 interpolation="bilinear", seed=None, fill_value=0.0, data_format=None,
                 **kwargs):
        super().__init__(fill_mode=fill_mode, interpolation=interpolation, seed=seed,
                         fill_value=fill_value, data_format=data_format, **kwargs)
        self.height_factor = _plain(height_factor)
        self.height_lower, self.height_upper = factor_range(self.name, "height_factor",
                                                            height_factor)
        self.width_factor = _plain(width_factor)
        self.width_lower, self.width_upper = factor_range(self.name, "width_factor",
                                                          width_factor)

    draws_transformation = True

    def draw(self, batch, height, width, seed):
        """Keras's draw: ``{"translations": (batch, 2) shifts (x, y) in pixels}``."""
        shift_y = ops.multiply(random.uniform((batch, 1), self.height_lower,
                                              self.height_upper, seed=seed), float(height))
        shift_x = ops.multiply(random.uniform((batch, 1), self.width_lower,
                                              self.width_upper, seed=seed), float(width))
        return {"translations": ops.concatenate([shift_x, shift_y], axis=1)}

    def coefficients_from(self, transformation, height, width):
        shifts = ops.cast(ops.convert_to_tensor(transformation["translations"]), "float32")
        shift_x = ops.reshape(shifts[:, 0], (-1, 1, 1))
        shift_y = ops.reshape(shifts[:, 1], (-1, 1, 1))
        return 1.0, 0.0, ops.negative(shift_x), 0.0, 1.0, ops.negative(shift_y)

    def transform_bounding_boxes(self, bounding_boxes, transformation=None, training=True):
        """Boxes shifted with the images, clipped to the image (Keras)."""
        if not training or transformation is None:
            return bounding_boxes
        return translate_boxes(self, bounding_boxes, transformation)

    def get_config(self) -> dict:
        return {**super().get_config(), "height_factor": self.height_factor,
                "width_factor": self.width_factor}
