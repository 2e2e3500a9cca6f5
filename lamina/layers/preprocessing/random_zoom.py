"""``RandomZoom``: images zoomed about their center by a random amount while training."""
from __future__ import annotations

from ... import ops, random
from .base_image_layer import AffineImageLayer
from .bounding_boxes.affine_boxes import zoom_boxes
from .image_utils import factor_range, plain_factor as _plain


class RandomZoom(AffineImageLayer):
    """Keras 3's ``RandomZoom``: when ``training``, each image is sampled at
    ``zoom * (p - c) + c`` about the pixel-grid center ``c``, with ``zoom`` drawn uniformly
    from ``1 + [lower, upper]`` of ``height_factor`` (then of ``width_factor``; None keeps
    the aspect ratio). A positive factor zooms out, a negative one in; factors are a number
    ``f`` for ``(-f, f)`` or a pair, in [-1, 1].

    Args:
        height_factor: Vertical zoom range: a number ``f`` for ``(-f, f)`` or a pair, in [-1,
            1]; positive zooms out.
        width_factor: Horizontal zoom range, as ``height_factor``; None keeps the aspect ratio.
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

    def __init__(self, height_factor, width_factor=None, fill_mode="reflect",
                 interpolation="bilinear", seed=None, fill_value=0.0, data_format=None,
                 **kwargs):
        super().__init__(fill_mode=fill_mode, interpolation=interpolation, seed=seed,
                         fill_value=fill_value, data_format=data_format, **kwargs)
        self.height_factor = _plain(height_factor)
        self.height_lower, self.height_upper = factor_range(self.name, "height_factor",
                                                            height_factor)
        self.width_factor = _plain(width_factor)
        if width_factor is not None:
            self.width_lower, self.width_upper = factor_range(self.name, "width_factor",
                                                              width_factor)

    draws_transformation = True

    def draw(self, batch, height, width, seed):
        """Keras's draw: ``{"height_zoom": (batch, 1), "width_zoom": (batch, 1)}``."""
        h_zoom = random.uniform((batch, 1), 1.0 + self.height_lower, 1.0 + self.height_upper,
                                seed=seed)
        w_zoom = h_zoom if self.width_factor is None else random.uniform(
            (batch, 1), 1.0 + self.width_lower, 1.0 + self.width_upper, seed=seed)
        return {"height_zoom": h_zoom, "width_zoom": w_zoom}

    def coefficients_from(self, transformation, height, width):
        def per_image(key):
            value = ops.cast(ops.convert_to_tensor(transformation[key]), "float32")
            return ops.reshape(value, (-1, 1, 1))
        return zoom_coefficients(per_image("height_zoom"), per_image("width_zoom"), height,
                                 width)

    def transform_bounding_boxes(self, bounding_boxes, transformation=None, training=True):
        """Boxes clipped to the zoomed window and rescaled to the image (Keras)."""
        if not training or transformation is None:
            return bounding_boxes
        return zoom_boxes(self, bounding_boxes, transformation)

    def get_config(self) -> dict:
        return {**super().get_config(), "height_factor": self.height_factor,
                "width_factor": self.width_factor}


def zoom_coefficients(h_zoom, w_zoom, height: int, width: int):
    x_offset = ops.multiply((width - 1.0) / 2.0, ops.subtract(1.0, w_zoom))
    y_offset = ops.multiply((height - 1.0) / 2.0, ops.subtract(1.0, h_zoom))
    return w_zoom, 0.0, x_offset, 0.0, h_zoom, y_offset
