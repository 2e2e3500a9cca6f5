"""Keras 3's RandomColorJitter, RandomPosterization, RandomSharpness, RandomErasing and
RandomGaussianBlur (Keras's factor conventions and draws; Lamina's random values)."""
from __future__ import annotations

import numbers

from ... import ops, random
from ...ops import image_filters
from .augmentation_base import (AugmentationLayer, keras_factor, per_image, rescale,
                                value_range_pair)
from .color_augment import RandomHue, RandomSaturation
from .random_brightness import RandomBrightness
from .random_contrast import RandomContrast


def _uniform(layer, shape, low, high, dtype):
    return random.uniform(shape, float(low), float(high), dtype=dtype,
                          seed=layer.seed_generator)


class RandomColorJitter(AugmentationLayer):
    """RandomBrightness, RandomContrast, RandomSaturation then RandomHue, each only when
    its factor is given, all drawing from this layer's seed generator.

    Args:
        value_range: ``(low, high)``, the range of the input pixel values (e.g. ``(0, 255)`` or
            ``(0, 1)``); the output is clipped to it.
        brightness_factor: Factor of a RandomBrightness step; None: skipped.
        contrast_factor: Factor of a RandomContrast step; None: skipped.
        saturation_factor: Factor of a RandomSaturation step; None: skipped.
        hue_factor: Factor of a RandomHue step; None: skipped.
        seed: Integer seed of the layer's random draws; None draws a random seed.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
    """

    def __init__(self, value_range=(0, 255), brightness_factor=None, contrast_factor=None,
                 saturation_factor=None, hue_factor=None, seed=None, data_format=None,
                 **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.value_range = value_range_pair(self.name, value_range, sort=False)
        self.brightness_factor = brightness_factor
        self.contrast_factor = contrast_factor
        self.saturation_factor = saturation_factor
        self.hue_factor = hue_factor
        steps = []
        for factor, cls in ((brightness_factor, RandomBrightness),
                            (contrast_factor, RandomContrast),
                            (saturation_factor, RandomSaturation), (hue_factor, RandomHue)):
            if factor is not None:
                step = cls(factor, value_range=self.value_range, seed=seed,
                           name=f"{self.name}_{cls.__name__}")
                step.seed_generator = self.seed_generator      # one stream, as Keras
                steps.append(step)
        self._steps = steps

    def transform(self, images, labels, training):
        for step in self._steps:
            images = (step.augment(images) if hasattr(step, "augment")
                      else step.transform(images, None, True)[0])
        return images, labels

    def get_config(self) -> dict:
        return {**super().get_config(), "value_range": list(self.value_range),
                "brightness_factor": self.brightness_factor,
                "contrast_factor": self.contrast_factor,
                "saturation_factor": self.saturation_factor, "hue_factor": self.hue_factor}


class RandomPosterization(AugmentationLayer):
    """Keep ``bits`` high bits of each 0..255 value, ``bits`` drawn from
    ``randint(factor[0], factor[1])`` (one value when the two are equal; a number ``f``
    in [1, 8] means ``(1, f)``, Keras's rule).

    Args:
        factor: Range of the bits kept: a number ``f`` in [1, 8] for ``(1, f)``, or a pair.
        value_range: ``(low, high)``, the range of the input pixel values (e.g. ``(0, 255)`` or
            ``(0, 1)``); the output is clipped to it.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
        seed: Integer seed of the layer's random draws; None draws a random seed.
    """

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.factor = keras_factor(self.name, "factor", factor, 1.0, 8.0)
        self.factor = tuple(int(f) for f in self.factor)
        self.value_range = value_range_pair(self.name, value_range)

    def transform(self, images, labels, training):
        low, high = self.factor
        if low != high:
            bits = random.randint((images.shape[0],), low, high, seed=self.seed_generator)
            step = per_image(ops.power(2.0, ops.cast(ops.subtract(8, bits), images.dtype)),
                             images)
        else:
            step = float(2 ** (8 - low))
        x = ops.floor(ops.clip(rescale(images, self.value_range, (0, 255)), 0.0, 255.0))
        x = ops.multiply(ops.floor(ops.divide(x, step)), step)
        return rescale(x, (0, 255), self.value_range), labels

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": list(self.factor),
                "value_range": list(self.value_range)}


class RandomSharpness(AugmentationLayer):
    """``x + (1 - 2 f) * (smooth(x) - x)`` with ``f ~ uniform(factor)`` per image
    (``f = 0.5`` is the identity, 0 the 3x3 smoothing ``[1 1 1; 1 5 1; 1 1 1] / 13``,
    1 doubles the detail), clipped to ``value_range``.

    Args:
        factor: Range of the sharpness: a number ``f`` for ``(0, f)``, or a pair (0.5 is the
            identity).
        value_range: ``(low, high)``, the range of the input pixel values (e.g. ``(0, 255)`` or
            ``(0, 1)``); the output is clipped to it.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
        seed: Integer seed of the layer's random draws; None draws a random seed.
    """

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.factor = keras_factor(self.name, "factor", factor, 0.0, 1.0)
        self.value_range = value_range_pair(self.name, value_range)

    def transform(self, images, labels, training):
        f = _uniform(self, (images.shape[0], 1, 1, 1), *self.factor, images.dtype)
        a, b = 1.0 / 13.0, 5.0 / 13.0
        smooth = image_filters._depthwise(images, [[a, a, a], [a, b, a], [a, a, a]], "same")
        out = ops.add(images, ops.multiply(ops.subtract(1.0, ops.multiply(f, 2.0)),
                                           ops.subtract(smooth, images)))
        return ops.clip(out, *self.value_range), labels

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": list(self.factor),
                "value_range": list(self.value_range)}


class RandomErasing(AugmentationLayer):
    """With probability ``uniform(factor)``, fill a box of each image (sides
    ``sqrt(uniform(scale))`` of the image's, at a uniform place) with ``fill_value`` (a
    number or an RGB triple; None: normal noise times ``value_range[1]``), clipped to
    ``value_range``.

    Args:
        factor: Probability range of erasing: a number ``f`` for ``(0, f)``, or a pair.
        scale: Range of the erased area as a fraction of the image's, ``(low, high)``.
        fill_value: Value of the erased box (a number or an RGB triple); None: normal noise.
        value_range: ``(low, high)``, the range of the input pixel values (e.g. ``(0, 255)`` or
            ``(0, 1)``); the output is clipped to it.
        seed: Integer seed of the layer's random draws; None draws a random seed.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
    """

    def __init__(self, factor=1.0, scale=(0.02, 0.33), fill_value=None, value_range=(0, 255),
                 seed=None, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.factor = keras_factor(self.name, "factor", factor, 0.0, 1.0)
        self.scale = keras_factor(self.name, "scale", scale, 0.0, 1.0)
        if fill_value is not None and not isinstance(fill_value, numbers.Real) and not (
                isinstance(fill_value, (list, tuple)) and len(fill_value) == 3):
            raise ValueError(f"{self.name}: argument 'fill_value' must be None, a number or "
                             f"a list of 3 numbers; received {fill_value!r}")
        self.fill_value = fill_value
        self.value_range = value_range_pair(self.name, value_range, sort=False)

    def _bounds(self, batch, length, ratio, dtype):
        size = ops.multiply(ratio, float(length))
        start = ops.multiply(_uniform(self, (batch,), 0.0, 1.0, dtype),
                             ops.subtract(float(length), size))
        return ops.reshape(start, (-1, 1, 1, 1)), ops.reshape(ops.add(start, size),
                                                             (-1, 1, 1, 1))

    def transform(self, images, labels, training):
        batch, height, width, _ = images.shape
        dtype = images.dtype
        sides = ops.sqrt(_uniform(self, (batch, 2), *self.scale, dtype))
        x0, x1 = self._bounds(batch, width, sides[:, 0], dtype)
        y0, y1 = self._bounds(batch, height, sides[:, 1], dtype)
        ys = ops.reshape(ops.arange(height, dtype=dtype), (1, height, 1, 1))
        xs = ops.reshape(ops.arange(width, dtype=dtype), (1, 1, width, 1))
        box = ops.logical_and(
            ops.logical_and(ops.greater_equal(xs, x0), ops.less(xs, x1)),
            ops.logical_and(ops.greater_equal(ys, y0), ops.less(ys, y1)))
        probability = _uniform(self, (batch,), *self.factor, dtype)
        apply = per_image(ops.less(_uniform(self, (batch,), 0.0, 1.0, dtype), probability),
                          images)
        if self.fill_value is None:
            fill = ops.multiply(random.normal(images.shape, dtype=dtype,
                                              seed=self.seed_generator),
                                float(self.value_range[1]))
        else:
            fill = ops.multiply(ops.ones_like(images), ops.convert_to_tensor(
                self.fill_value, dtype=dtype))
        fill = ops.clip(fill, float(self.value_range[0]), float(self.value_range[1]))
        return ops.where(ops.logical_and(box, apply), fill, images), labels

    def transform_images(self, images, transformation=None, training=True):
        """Keras's step with a given draw: ``transformation["fill_value"]`` where
        ``batch_masks`` is True, in the images whose ``apply_erasing`` is True."""
        images = self._as_compute_dtype(ops.convert_to_tensor(images))
        if training and transformation is not None:
            apply = ops.reshape(ops.convert_to_tensor(transformation["apply_erasing"]),
                                (-1, 1, 1, 1))
            mask = ops.logical_and(ops.convert_to_tensor(transformation["batch_masks"]),
                                   apply)
            fill = ops.cast(ops.convert_to_tensor(transformation["fill_value"]), images.dtype)
            images = ops.where(mask, fill, images)
        return images

    def get_config(self) -> dict:
        fill = list(self.fill_value) if isinstance(self.fill_value, tuple) else self.fill_value
        return {**super().get_config(), "factor": list(self.factor),
                "scale": list(self.scale), "fill_value": fill,
                "value_range": list(self.value_range)}


class RandomGaussianBlur(AugmentationLayer):
    """With probability ``uniform(factor)``, blur each image with a ``kernel_size``
    Gaussian whose two sigmas (one draw per batch) are ``uniform(sigma) + 1e-6``; clipped
    to ``value_range``. ``kernel_size``: an odd int or a pair of odd ints.

    Args:
        factor: Probability range of blurring: a number ``f`` for ``(0, f)``, or a pair.
        kernel_size: Size of the Gaussian kernel: an odd int or a pair of odd ints.
        sigma: Range of the Gaussian's standard deviation: a number for ``(0, sigma)``, or a
            pair.
        value_range: ``(low, high)``, the range of the input pixel values (e.g. ``(0, 255)`` or
            ``(0, 1)``); the output is clipped to it.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
        seed: Integer seed of the layer's random draws; None draws a random seed.
    """

    def __init__(self, factor=1.0, kernel_size=3, sigma=1.0, value_range=(0, 255),
                 data_format=None, seed=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.factor = keras_factor(self.name, "factor", factor, 0.0, 1.0)
        sizes = kernel_size if isinstance(kernel_size, (list, tuple)) else (kernel_size,) * 2
        if len(sizes) != 2 or not all(isinstance(k, numbers.Integral) and k > 0 and k % 2
                                      for k in sizes):
            raise ValueError(f"{self.name}: argument 'kernel_size' must be an odd int or a "
                             f"pair of odd ints; received {kernel_size!r}")
        self.kernel_size = tuple(int(k) for k in sizes)
        self.sigma = keras_factor(self.name, "sigma", sigma, 0.0, 1.0)
        self.value_range = value_range_pair(self.name, value_range, sort=False)

    def transform(self, images, labels, training):
        batch, dtype = images.shape[0], images.dtype
        probability = _uniform(self, (batch,), *self.factor, dtype)
        apply = per_image(ops.less(_uniform(self, (batch,), 0.0, 1.0, dtype), probability),
                          images)
        sigmas = ops.add(_uniform(self, (2,), *self.sigma, dtype), 1e-6)
        return self._blur(images, apply, sigmas), labels

    def _blur(self, images, apply, sigmas):
        """NHWC ``images`` blurred with sigmas ``(x, y)`` where ``apply`` is True, clipped."""
        blurred = image_filters.gaussian_blur_traced(images, self.kernel_size, sigmas[1],
                                                     sigmas[0])
        out = ops.where(apply, blurred, images)
        return ops.clip(out, float(self.value_range[0]), float(self.value_range[1]))

    def transform_images(self, images, transformation=None, training=True):
        """Keras's step with a given draw: the images whose ``should_apply_blur`` is True
        blurred with sigmas ``transformation["blur_factor"]`` (x, y), then clipped."""
        images = ops.convert_to_tensor(images)
        if not (training and transformation is not None):
            return self._as_compute_dtype(images)
        sigmas = ops.cast(ops.convert_to_tensor(transformation["blur_factor"]),
                          self.compute_dtype)
        apply = ops.reshape(ops.convert_to_tensor(transformation["should_apply_blur"]),
                            (-1, 1, 1, 1))
        return self._apply(images, lambda x: self._blur(x, apply, sigmas))

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": list(self.factor),
                "kernel_size": list(self.kernel_size), "sigma": list(self.sigma),
                "value_range": list(self.value_range)}
