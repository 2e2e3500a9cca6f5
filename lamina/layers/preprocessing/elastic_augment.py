"""Keras 3's RandomElasticTransform."""
from __future__ import annotations

import numbers

from ... import ops, random
from ...ops import image_filters
from ...ops.image import batch_and_channel
from ...ops.image_sampling import sample
from .augmentation_base import AugmentationLayer, keras_factor, per_image, value_range_pair


class RandomElasticTransform(AugmentationLayer):
    """With probability ``uniform(factor)``, displace each image's pixels by a smooth
    random field: ``d = uniform(scale)`` per batch, ``alpha = 0.1 d max(h, w)``,
    ``sigma = 0.05 d min(h, w)``; the field is normal noise times sigma blurred by a
    Gaussian of ``sigma``, times alpha (Keras's recipe), resampled with ``fill_mode`` and
    clipped to ``value_range``. Keras sizes the blur kernel from the drawn sigma
    (``int(6 sigma) | 1``); Lamina's kernel has the size that the largest sigma of
    ``scale`` needs, so that its shape is static (the same Gaussian, a longer tail).

    Args:
        factor: Probability range of applying the transform: a number ``f`` for ``(0, f)``, or a
            pair.
        scale: Range of the displacement strength: a number ``s`` for ``(0, s)``, or a pair.
        interpolation: Interpolation of pixel values between grid points: 'bilinear' or
            'nearest'.
        fill_mode: How points outside the image are filled: 'constant' (with ``fill_value``),
            'reflect', 'wrap' or 'nearest'.
        fill_value: Value of the filled points when ``fill_mode='constant'``.
        value_range: ``(low, high)``, the range of the input pixel values (e.g. ``(0, 255)`` or
            ``(0, 1)``); the output is clipped to it.
        seed: Integer seed of the layer's random draws; None draws a random seed.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
    """

    def __init__(self, factor=1.0, scale=1.0, interpolation="bilinear", fill_mode="reflect",
                 fill_value=0.0, value_range=(0, 255), seed=None, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.factor = keras_factor(self.name, "factor", factor, 0.0, 1.0)
        if isinstance(scale, (list, tuple)) and len(scale) == 2 and all(
                isinstance(v, numbers.Real) for v in scale):
            self.scale = tuple(sorted(scale))
        elif isinstance(scale, numbers.Real) and not isinstance(scale, bool):
            self.scale = (0, abs(scale))     # Keras's _set_factor_by_name (its bound is int 0)
        else:
            raise ValueError(f"{self.name}: argument 'scale' must be a number or a pair of "
                             f"numbers; received {scale!r}")
        if interpolation not in ("nearest", "bilinear"):
            raise NotImplementedError(f"{self.name}: unknown interpolation {interpolation!r}; "
                                      f"expected one of 'nearest', 'bilinear'")
        if fill_mode not in ("constant", "nearest", "wrap", "mirror", "reflect"):
            raise NotImplementedError(f"{self.name}: unknown fill_mode {fill_mode!r}; "
                                      f"expected one of 'constant', 'nearest', 'wrap', "
                                      f"'mirror', 'reflect'")
        self.interpolation = interpolation
        self.fill_mode = fill_mode
        self.fill_value = fill_value
        self.value_range = value_range_pair(self.name, value_range, sort=False)

    def transform(self, images, labels, training):
        if self.scale[1] == 0 or self.factor[1] == 0:
            return images, labels
        batch, height, width, channels = images.shape
        dtype = images.dtype
        probability = random.uniform((batch,), *self.factor, dtype=dtype,
                                     seed=self.seed_generator)
        apply = ops.less(random.uniform((batch,), 0.0, 1.0, dtype=dtype,
                                        seed=self.seed_generator), probability)
        d = random.uniform((), *self.scale, dtype=dtype, seed=self.seed_generator)
        return self._displace(images, apply, d, self.seed_generator), labels

    def transform_images(self, images, transformation=None, training=True):
        """Keras's step with a given draw: the images whose ``apply_transform`` is True
        displaced with strength ``distortion_factor``, the noise drawn with
        ``transformation["seed"]``."""
        images = ops.convert_to_tensor(images)
        if not (training and transformation is not None) or self.scale[1] == 0:
            return self._as_compute_dtype(images)
        apply = ops.convert_to_tensor(transformation["apply_transform"])
        d = ops.cast(ops.convert_to_tensor(transformation["distortion_factor"]),
                     self.compute_dtype)
        seed = transformation.get("seed", self.seed_generator)
        return self._apply(images, lambda x: self._displace(x, apply, d, seed))

    def _displace(self, images, apply, d, seed):
        batch, height, width, channels = images.shape
        dtype = images.dtype
        alpha = ops.multiply(d, 0.1 * max(height, width))
        sigma = ops.multiply(d, 0.05 * min(height, width))
        size = int(6 * 0.05 * min(height, width) * self.scale[1]) | 1
        noise = random.normal((2 * batch, height, width, 1), dtype=dtype, seed=seed)
        field = image_filters.gaussian_blur_traced(ops.multiply(noise, sigma), (size, size),
                                                   ops.add(sigma, 1e-12),
                                                   ops.add(sigma, 1e-12))
        dx, dy = field[:batch], field[batch:]
        ys = ops.reshape(ops.arange(height, dtype=dtype), (1, height, 1, 1))
        xs = ops.reshape(ops.arange(width, dtype=dtype), (1, 1, width, 1))
        x_in, y_in = ops.add(xs, ops.multiply(dx, alpha)), ops.add(ys, ops.multiply(dy, alpha))
        warped = sample(images, batch_and_channel(batch, channels, y_in, x_in),
                        0 if self.interpolation == "nearest" else 1, self.fill_mode,
                        self.fill_value)
        out = ops.where(per_image(apply, images), warped, images)
        return ops.clip(out, float(self.value_range[0]), float(self.value_range[1]))

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": list(self.factor),
                "scale": list(self.scale), "interpolation": self.interpolation,
                "fill_mode": self.fill_mode, "fill_value": self.fill_value,
                "value_range": list(self.value_range)}

