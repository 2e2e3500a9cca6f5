"""Keras 3's colour augmentation layers: AutoContrast, Solarization, RandomInvert,
RandomGrayscale, RandomHue, RandomSaturation, RandomColorDegeneration.

Each follows Keras's code for factor conventions and draws (one value per image from the
layer's seed generator); AutoContrast is deterministic and applies whatever ``training``
is, the others return their input (in the compute dtype) when ``training`` is False."""
from __future__ import annotations

import numbers

from ... import ops, random
from ...ops import image as image_ops
from .augmentation_base import (AugmentationLayer, keras_factor, per_image, rescale,
                                value_range_pair)


def _uniform(layer, images, low, high, shape=None):
    shape = shape or (images.shape[0],)
    return random.uniform(shape, float(low), float(high), dtype=images.dtype,
                          seed=layer.seed_generator)


class AutoContrast(AugmentationLayer):
    """Stretch each channel of each image to the full ``value_range`` (its minimum to the
    low end, its maximum to the high end); a constant channel is kept as it is.

    Args:
        value_range: ``(low, high)``, the range of the input pixel values (e.g. ``(0, 255)`` or
            ``(0, 1)``); the output is clipped to it.
    """

    deterministic = True

    def __init__(self, value_range=(0, 255), **kwargs):
        super().__init__(random=False, **kwargs)
        self.value_range = value_range_pair(self.name, value_range)

    def transform(self, images, labels, training):
        x = rescale(images, self.value_range, (0, 255))
        low = ops.min(x, axis=(1, 2), keepdims=True)
        high = ops.max(x, axis=(1, 2), keepdims=True)
        spread = ops.greater(high, low)      # a constant channel stays (Keras: NaN -> input)
        scale = ops.divide(255.0, ops.where(spread, ops.subtract(high, low), 1.0))
        out = ops.clip(ops.subtract(ops.multiply(x, scale), ops.multiply(low, scale)), 0.0,
                       255.0)
        out = rescale(out, (0, 255), self.value_range)
        return ops.where(spread, out, images), labels

    def get_config(self) -> dict:
        return {**super().get_config(), "value_range": list(self.value_range)}


class Solarization(AugmentationLayer):
    """Add ``uniform(addition_factor[0], 255 * addition_factor[1])`` (in 0..255 units),
    clip, and invert pixels at or above ``uniform(threshold_factor[0],
    255 * threshold_factor[1])``; a factor ``f`` means ``(0, f)``, as in Keras.

    Args:
        addition_factor: Range of the value added before inverting: a number ``f`` for ``(0,
            f)`` or a pair, as a fraction of 255.
        threshold_factor: Range of the inversion threshold: a number ``f`` for ``(0, f)`` or a
            pair, as a fraction of 255.
        value_range: ``(low, high)``, the range of the input pixel values (e.g. ``(0, 255)`` or
            ``(0, 1)``); the output is clipped to it.
        seed: Integer seed of the layer's random draws; None draws a random seed.
    """

    def __init__(self, addition_factor=0.0, threshold_factor=0.0, value_range=(0, 255),
                 seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.addition_factor = self._factor("addition_factor", addition_factor)
        self.threshold_factor = self._factor("threshold_factor", threshold_factor)
        self.value_range = value_range_pair(self.name, value_range)

    def _factor(self, arg, factor):
        if isinstance(factor, numbers.Real) and not isinstance(factor, bool) and (
                0 <= factor <= 1):
            return (0, factor)                 # as Keras writes it: the int bound 0
        if isinstance(factor, (list, tuple)) and len(factor) == 2 and all(
                isinstance(v, numbers.Real) and 0 <= v <= 1 for v in factor):
            return tuple(sorted(factor))
        raise ValueError(f"{self.name}: argument '{arg}' must be a number or a pair of "
                         f"numbers in [0, 1]; received {factor!r}")

    def transform(self, images, labels, training):
        shape = (images.shape[0], 1, 1, 1)
        additions = _uniform(self, images, self.addition_factor[0],
                             self.addition_factor[1] * 255, shape)
        thresholds = _uniform(self, images, self.threshold_factor[0],
                              self.threshold_factor[1] * 255, shape)
        x = ops.clip(ops.add(rescale(images, self.value_range, (0, 255)), additions), 0, 255)
        x = ops.where(ops.less(x, thresholds), x, ops.subtract(255.0, x))
        return rescale(x, (0, 255), self.value_range), labels

    def get_config(self) -> dict:
        return {**super().get_config(), "addition_factor": list(self.addition_factor),
                "threshold_factor": list(self.threshold_factor),
                "value_range": list(self.value_range)}


class RandomInvert(AugmentationLayer):
    """Each image becomes ``value_range[1] - x`` with a probability drawn from
    ``factor`` (a number ``f`` in [0, 1] for ``(0, f)``, or a pair).

    Args:
        factor: Probability range of inverting: a number ``f`` in [0, 1] for ``(0, f)``, or a
            pair.
        value_range: ``(low, high)``, the range of the input pixel values (e.g. ``(0, 255)`` or
            ``(0, 1)``); the output is clipped to it.
        seed: Integer seed of the layer's random draws; None draws a random seed.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
    """

    def __init__(self, factor=1.0, value_range=(0, 255), seed=None, data_format=None,
                 **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.factor = keras_factor(self.name, "factor", factor, 0.0, 1.0)
        self.value_range = value_range_pair(self.name, value_range, sort=False)

    def transform(self, images, labels, training):
        probability = _uniform(self, images, *self.factor)
        threshold = _uniform(self, images, 0.0, 1.0)
        invert = per_image(ops.less(threshold, probability), images)
        return ops.where(invert, ops.subtract(float(self.value_range[1]), images),
                         images), labels

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": list(self.factor),
                "value_range": list(self.value_range)}


class RandomGrayscale(AugmentationLayer):
    """Each image turned to grayscale (kept with its channels) with probability
    ``factor``.

    Args:
        factor: Probability that an image is turned to grayscale, in [0, 1].
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
        seed: Integer seed of the layer's random draws; None draws a random seed.
    """

    def __init__(self, factor=0.5, data_format=None, seed=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        if isinstance(factor, bool) or not isinstance(factor, numbers.Real) or not (
                0 <= factor <= 1):
            raise ValueError(f"{self.name}: argument 'factor' must be a number in [0, 1]; "
                             f"received {factor!r}")
        self.factor = factor

    def transform(self, images, labels, training):
        apply = per_image(ops.less(_uniform(self, images, 0.0, 1.0), float(self.factor)),
                          images)
        gray = image_ops.rgb_to_grayscale(images)
        return ops.where(apply, gray, images), labels

    def get_config(self) -> dict:
        config = {**super().get_config(), "factor": self.factor}
        config.pop("seed", None)         # Keras's RandomGrayscale writes no seed
        return config


class RandomHue(AugmentationLayer):
    """Shift each image's hue by ``±uniform(factor) / 2`` of the colour circle
    (``factor``: a number in [0, 1] for ``(0, f)``, or a pair).

    Args:
        factor: Range of the hue shift: a number ``f`` in [0, 1] for ``(0, f)``, or a pair.
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
        self.value_range = value_range_pair(self.name, value_range, sort=False)

    def transform(self, images, labels, training):
        sign = ops.where(ops.greater(_uniform(self, images, 0.0, 1.0), 0.5), -1.0, 1.0)
        shift = ops.multiply(ops.multiply(sign, _uniform(self, images, *self.factor)), 0.5)
        shift = ops.cast(ops.reshape(shift, (-1, 1, 1)), images.dtype)
        hsv = image_ops.rgb_to_hsv(rescale(images, self.value_range, (0, 1)))
        hue = ops.add(hsv[..., 0], shift)
        hue = ops.where(ops.greater(hue, 1.0), ops.subtract(hue, 1.0), hue)
        hue = ops.where(ops.less(hue, 0.0), ops.add(hue, 1.0), hue)
        rgb = image_ops.hsv_to_rgb(ops.stack([hue, hsv[..., 1], hsv[..., 2]], axis=-1))
        return rescale(ops.clip(rgb, 0.0, 1.0), (0, 1), self.value_range), labels

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": list(self.factor),
                "value_range": list(self.value_range)}


class RandomSaturation(AugmentationLayer):
    """Scale each image's saturation by ``f / (1 - f + 1e-7)``, ``f`` drawn from
    ``factor`` (Keras's base rule: a number ``f`` in [-1, 1] for ``(-|f|, |f|)``),
    clipped to ``value_range``.

    Args:
        factor: Range of the saturation factor: a number ``f`` in [-1, 1] for ``(-|f|, |f|)``,
            or a pair.
        value_range: ``(low, high)``, the range of the input pixel values (e.g. ``(0, 255)`` or
            ``(0, 1)``); the output is clipped to it.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
        seed: Integer seed of the layer's random draws; None draws a random seed.
    """

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.factor = keras_factor(self.name, "factor", factor, -1.0, 1.0)
        self.value_range = value_range_pair(self.name, value_range)

    def transform(self, images, labels, training):
        f = _uniform(self, images, *self.factor)
        f = ops.reshape(ops.divide(f, ops.add(ops.subtract(1.0, f), 1e-7)), (-1, 1, 1))
        hsv = image_ops.rgb_to_hsv(images)
        saturation = ops.clip(ops.multiply(hsv[..., 1], f), *self.value_range)
        return image_ops.hsv_to_rgb(ops.stack([hsv[..., 0], saturation, hsv[..., 2]],
                                              axis=-1)), labels

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": list(self.factor),
                "value_range": list(self.value_range)}


class RandomColorDegeneration(AugmentationLayer):
    """Blend each image toward its grayscale by ``uniform(factor)`` (Keras's base rule
    for ``factor``), clipped to ``value_range``.

    Args:
        factor: Range of the blend toward grayscale: a number ``f`` for ``(0, f)``, or a pair,
            in [0, 1].
        value_range: ``(low, high)``, the range of the input pixel values (e.g. ``(0, 255)`` or
            ``(0, 1)``); the output is clipped to it.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
        seed: Integer seed of the layer's random draws; None draws a random seed.
    """

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.factor = keras_factor(self.name, "factor", factor, -1.0, 1.0)
        self.value_range = value_range_pair(self.name, value_range)

    def transform(self, images, labels, training):
        f = _uniform(self, images, *self.factor, shape=(images.shape[0], 1, 1, 1))
        gray = image_ops.rgb_to_grayscale(images)
        out = ops.add(images, ops.multiply(f, ops.subtract(gray, images)))
        return ops.clip(out, *self.value_range), labels

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": list(self.factor),
                "value_range": list(self.value_range)}
