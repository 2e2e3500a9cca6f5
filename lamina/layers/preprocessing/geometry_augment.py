"""Keras 3's RandomShear, RandomPerspective and Equalization."""
from __future__ import annotations

import numbers

from ... import ops, random
from ...ops import image as image_ops
from .augmentation_base import (AugmentationLayer, keras_factor, per_image, rescale,
                                value_range_pair)
from .bounding_boxes.affine_boxes import perspective_boxes, shear_boxes
from .bounding_boxes.formats import image_size
from .image_utils import affine_transform, from_nhwc, to_nhwc


def masks_like_images(layer, segmentation_masks, transformation, training):
    """``segmentation_masks`` through ``layer.augment_with`` with "nearest" sampling."""
    if not training or transformation is None:
        return segmentation_masks
    masks = ops.convert_to_tensor(segmentation_masks)
    nhwc = to_nhwc(masks, layer.data_format, layer.compute_dtype)
    return from_nhwc(layer.augment_with(nhwc, transformation, "nearest"), layer.data_format,
                     len(masks.shape))


def _unit_factor(layer, arg, factor):
    """RandomShear's factors: a number ``f`` in [0, 1] for ``(-f, f)``, or a pair. Keras
    checks a pair's ends against [0, 1], so its own config ``(-f, f)`` does not load back;
    Lamina accepts pairs in [-1, 1] so that get_config/from_config round-trips."""
    def number(v):
        return isinstance(v, numbers.Real) and not isinstance(v, bool)
    if isinstance(factor, (list, tuple)):
        if len(factor) == 2 and all(number(v) and -1 <= v <= 1 for v in factor):
            return tuple(sorted(float(v) for v in factor))
    elif number(factor) and 0 <= factor <= 1:
        return (-abs(float(factor)), abs(float(factor)))
    raise ValueError(f"{layer}: argument '{arg}' must be a number in [0, 1] or a pair of "
                     f"numbers in [-1, 1]; received {factor!r}")


def _choose(layer, arg, value, choices):
    if value not in choices:
        raise NotImplementedError(f"{layer}: unknown {arg} {value!r}; expected one of "
                                  f"{', '.join(repr(c) for c in choices)}")
    return value


class RandomShear(AugmentationLayer):
    """Shear each image: output (x, y) samples ``(x + s_x y, s_y x + y)`` with
    ``s ~ uniform(factor)`` and one random sign per image (Keras's draw), filling by
    ``fill_mode``.

    Args:
        x_factor: Range of the horizontal shear: a number ``f`` for ``(0, f)``, or a pair.
        y_factor: Range of the vertical shear: a number ``f`` for ``(0, f)``, or a pair.
        interpolation: Interpolation of pixel values between grid points: 'bilinear' or
            'nearest'.
        fill_mode: How points outside the image are filled: 'constant' (with ``fill_value``),
            'reflect', 'wrap' or 'nearest'.
        fill_value: Value of the filled points when ``fill_mode='constant'``.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
        seed: Integer seed of the layer's random draws; None draws a random seed.
    """

    def __init__(self, x_factor=0.0, y_factor=0.0, interpolation="bilinear",
                 fill_mode="reflect", fill_value=0.0, data_format=None, seed=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.x_factor = _unit_factor(self.name, "x_factor", x_factor)
        self.y_factor = _unit_factor(self.name, "y_factor", y_factor)
        self.fill_mode = _choose(self.name, "fill_mode", fill_mode,
                                 ("reflect", "wrap", "constant", "nearest"))
        self.interpolation = _choose(self.name, "interpolation", interpolation,
                                     ("nearest", "bilinear"))
        if isinstance(fill_value, bool) or not isinstance(fill_value, numbers.Real):
            raise ValueError(f"{self.name}: argument 'fill_value' must be a number; "
                             f"received {fill_value!r}")
        self.fill_value = fill_value

    draws_transformation = True

    def transform(self, images, labels, training):
        return self.augment_with(images, self.get_random_transformation(images)), labels

    def get_random_transformation(self, data, training=True, seed=None):
        """Keras's draw: ``{"shear_factor": (batch, 2) (x, y) shears with one random sign
        per image, "input_shape": the images' shape}``; None when not ``training``."""
        if not training:
            return None
        images = data["images"] if isinstance(data, dict) else data
        shape, dtype = tuple(images.shape), "float32"
        batch = shape[0] if len(shape) == 4 else 1
        seed = self.seed_generator if seed is None else seed
        sign = ops.where(ops.greater(random.uniform((batch, 1), 0.0, 1.0, dtype=dtype,
                                                    seed=seed), 0.5), -1.0, 1.0)
        shear_y = random.uniform((batch, 1), *self.y_factor, dtype=dtype, seed=seed)
        shear_x = random.uniform((batch, 1), *self.x_factor, dtype=dtype, seed=seed)
        return {"shear_factor": ops.multiply(ops.concatenate([shear_x, shear_y], axis=1),
                                             sign),
                "input_shape": shape}

    def augment_with(self, images, transformation, interpolation=None):
        shear = ops.cast(ops.convert_to_tensor(transformation["shear_factor"]), "float32")
        sx = ops.reshape(shear[:, 0], (-1, 1, 1))
        sy = ops.reshape(shear[:, 1], (-1, 1, 1))
        return affine_transform(images, 1.0, sx, 0.0, sy, 1.0, 0.0,
                                interpolation or self.interpolation, self.fill_mode,
                                self.fill_value)

    def transform_segmentation_masks(self, segmentation_masks, transformation=None,
                                     training=True):
        """Masks sheared like the images, with "nearest" interpolation (Keras)."""
        return masks_like_images(self, segmentation_masks, transformation, training)

    def transform_bounding_boxes(self, bounding_boxes, transformation=None, training=True):
        if not training or transformation is None:
            return bounding_boxes
        return shear_boxes(self, bounding_boxes, transformation)

    def get_config(self) -> dict:
        return {**super().get_config(), "x_factor": list(self.x_factor),
                "y_factor": list(self.y_factor), "interpolation": self.interpolation,
                "fill_mode": self.fill_mode, "fill_value": self.fill_value}


class RandomPerspective(AugmentationLayer):
    """With probability ``uniform(factor)``, warp each image so that its corners move by
    ``uniform(-scale/2, scale/2)`` times their coordinates; outside reads ``fill_value``.

    Args:
        factor: Probability range of warping: a number ``f`` for ``(0, f)``, or a pair.
        scale: How far the corners may move, as a fraction of their coordinates.
        interpolation: Interpolation of pixel values between grid points: 'bilinear' or
            'nearest'.
        fill_value: Value of the pixels read from outside the image.
        seed: Integer seed of the layer's random draws; None draws a random seed.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
    """

    def __init__(self, factor=1.0, scale=1.0, interpolation="bilinear", fill_value=0.0,
                 seed=None, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.factor = keras_factor(self.name, "factor", factor, 0.0, 1.0)
        if isinstance(scale, bool) or not isinstance(scale, numbers.Real) or not (
                0 <= scale <= 1):
            raise ValueError(f"{self.name}: argument 'scale' must be a number in [0, 1]; "
                             f"received {scale!r}")
        self.scale = scale
        self.interpolation = _choose(self.name, "interpolation", interpolation,
                                     ("nearest", "bilinear"))
        self.fill_value = fill_value

    draws_transformation = True

    def transform(self, images, labels, training):
        return self.augment_with(images, self.get_random_transformation(images)), labels

    def get_random_transformation(self, data, training=True, seed=None):
        """Keras's draw: ``{"apply_perspective": (batch,) bool, "start_points": the
        corners, "end_points": the moved corners, "input_shape": the images' shape}``."""
        if not training:
            return None
        images = data["images"] if isinstance(data, dict) else data
        shape, dtype = tuple(images.shape), self.compute_dtype
        batch = shape[0] if len(shape) == 4 else 1
        height, width = image_size(shape, self.data_format)
        seed = self.seed_generator if seed is None else seed
        probability = random.uniform((batch,), *self.factor, dtype=dtype, seed=seed)
        apply = ops.less(random.uniform((batch,), 0.0, 1.0, dtype=dtype, seed=seed),
                         probability)
        move = random.uniform((batch, 4, 2), -0.5 * self.scale, 0.5 * self.scale,
                              dtype=dtype, seed=seed)
        corners = ops.convert_to_tensor([[[0.0, 0.0], [width - 1.0, 0.0], [0.0, height - 1.0],
                                          [width - 1.0, height - 1.0]]], dtype=dtype)
        start = ops.broadcast_to(corners, (batch, 4, 2))
        return {"apply_perspective": apply, "start_points": start,
                "end_points": ops.add(start, ops.multiply(start, move)), "input_shape": shape}

    def augment_with(self, images, transformation, interpolation=None):
        apply = ops.convert_to_tensor(transformation["apply_perspective"])
        start, end = (ops.cast(ops.convert_to_tensor(transformation[key]), images.dtype)
                      for key in ("start_points", "end_points"))
        return self._warp(images, apply, start, end, interpolation)

    def transform_segmentation_masks(self, segmentation_masks, transformation=None,
                                     training=True):
        """Masks warped like the images, with "nearest" interpolation (Keras)."""
        return masks_like_images(self, segmentation_masks, transformation, training)

    def transform_bounding_boxes(self, bounding_boxes, transformation=None, training=True):
        if not training or transformation is None:
            return bounding_boxes
        return perspective_boxes(self, bounding_boxes, transformation)

    def _warp(self, images, apply, start, end, interpolation=None):
        out = image_ops.perspective_transform(images, start, end,
                                              interpolation or self.interpolation,
                                              self.fill_value)
        return ops.where(per_image(apply, images), out, images)

    def transform_images(self, images, transformation=None, training=True):
        """Keras's step with a given draw: the images whose ``apply_perspective`` is True
        warped so that ``start_points`` (batch, 4, 2) land on ``end_points``."""
        images = ops.convert_to_tensor(images)
        if not (training and transformation is not None):
            return self._as_compute_dtype(images)
        dtype = self.compute_dtype
        apply = ops.convert_to_tensor(transformation["apply_perspective"])
        start = ops.cast(ops.convert_to_tensor(transformation["start_points"]), dtype)
        end = ops.cast(ops.convert_to_tensor(transformation["end_points"]), dtype)
        return self._apply(images, lambda x: self._warp(x, apply, start, end))

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": list(self.factor), "scale": self.scale,
                "interpolation": self.interpolation, "fill_value": self.fill_value}


class Equalization(AugmentationLayer):
    """Histogram equalization of each channel (the histogram of ``bins`` bins pooled over
    the batch, Keras's way), when ``training``; a channel with one occupied bin stays.

    Args:
        value_range: ``(low, high)``, the range of the input pixel values (e.g. ``(0, 255)`` or
            ``(0, 1)``); the output is clipped to it.
        bins: Number of histogram bins.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
    """

    def __init__(self, value_range=(0, 255), bins=256, data_format=None, **kwargs):
        super().__init__(random=False, data_format=data_format, **kwargs)
        if isinstance(bins, bool) or not isinstance(bins, numbers.Integral) or bins < 1:
            raise ValueError(f"{self.name}: argument 'bins' must be a positive int; "
                             f"received {bins!r}")
        self.bins = int(bins)
        self.value_range = value_range_pair(self.name, value_range)

    def _channel(self, channel):
        bins = self.bins
        channel = rescale(channel, self.value_range, (0, 255))
        index = ops.clip(ops.cast(ops.multiply(channel, (bins - 1) / 255.0), "int32"), 0,
                         bins - 1)
        hist = ops.sum(ops.one_hot(ops.reshape(index, (-1,)), bins, dtype="float32"), axis=0)
        upper = ops.convert_to_tensor([[1.0 if i <= j else 0.0 for j in range(bins)]
                                       for i in range(bins)], dtype="float32")
        cdf = ops.matmul(ops.reshape(hist, (1, bins)), upper)[0]
        cdf_min = ops.min(ops.where(ops.greater(cdf, 0.0), cdf, float("inf")))
        denominator = ops.subtract(cdf[bins - 1], cdf_min)
        denominator = ops.where(ops.equal(denominator, 0.0), 1.0, denominator)
        table = ops.clip(ops.round(ops.divide(ops.multiply(ops.subtract(cdf, cdf_min), 255.0),
                                              denominator)), 0.0, 255.0)
        lookup = ops.clip(ops.multiply(ops.divide(channel, 255.0), float(bins - 1)), 0.0,
                          float(bins - 1))
        equalized = ops.cast(ops.take(table, ops.reshape(ops.cast(lookup, "int32"), (-1,))),
                             channel.dtype)
        equalized = ops.reshape(equalized, channel.shape)
        occupied = ops.sum(ops.cast(ops.greater(hist, 0.0), "float32"))
        out = ops.where(ops.less_equal(occupied, 1.0), channel, equalized)
        return rescale(out, (0, 255), self.value_range)

    def transform(self, images, labels, training):
        if not training:
            return images, labels
        channels = [self._channel(images[..., c]) for c in range(images.shape[-1])]
        return ops.stack(channels, axis=-1), labels

    def get_config(self) -> dict:
        return {**super().get_config(), "value_range": list(self.value_range),
                "bins": self.bins}
