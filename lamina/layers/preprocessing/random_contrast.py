"""``RandomContrast``: each image's contrast scaled by a random factor while training."""
from __future__ import annotations

from ... import ops, random
from .base_image_layer import RandomImageLayer
from .image_utils import check_value_range, factor_range


class RandomContrast(RandomImageLayer):
    """Keras 3's ``RandomContrast``: when ``training``, each image gets a factor ``c``
    drawn uniformly from ``[1 - lower, 1 + upper]`` and each channel becomes
    ``(x - mean) * c + mean`` (``mean`` over the image's pixels), clipped to
    ``value_range``. ``factor``: a number ``f`` in [0, 1] (``lower = upper = f``, as
    Keras documents) or a pair of them.

    Args:
        factor: A number ``f`` in [0, 1] (contrast factors from ``[1 - f, 1 + f]``) or a pair
            ``(lower, upper)``.
        value_range: ``(low, high)``, the range of the input pixel values (e.g. ``(0, 255)`` or
            ``(0, 1)``); the output is clipped to it.
        seed: Integer seed of the layer's random draws; None draws a random seed.
    """

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)          # data_format arrives in kwargs
        self.factor = factor_range(self.name, "factor", factor, 0.0, 1.0,
                                   single=lambda f: (f, f))
        self.value_range = check_value_range(self.name, value_range)

    def augment(self, images):
        factor = self._draw(images, images.dtype, self.seed_generator)
        return self._adjust(images, factor, (1, 2))

    def get_random_transformation(self, data, training=True, seed=None):
        """Keras's draw: ``{"contrast_factor": c}``, one factor per image, shaped to
        broadcast against the images (zeros when not ``training``)."""
        images = data["images"] if isinstance(data, dict) else data
        if not training:
            shape = (images.shape[0], 1, 1, 1) if len(images.shape) == 4 else (1, 1, 1)
            return {"contrast_factor": ops.zeros(shape, dtype=self.compute_dtype)}
        seed = self.seed_generator if seed is None else seed
        return {"contrast_factor": self._draw(images, self.compute_dtype, seed)}

    def _draw(self, images, dtype, seed):
        """One factor in [1 - lower, 1 + upper] per image, shaped (batch, 1, 1, 1)."""
        shape = (images.shape[0], 1, 1, 1) if len(images.shape) == 4 else (1, 1, 1)
        lower, upper = self.factor
        return random.uniform(shape, 1.0 - lower, 1.0 + upper, dtype=dtype, seed=seed)

    def transform_images(self, images, transformation, training=True):
        """``images`` (in ``data_format``, rank 3 or 4) with a drawn ``transformation``
        applied; unchanged when not ``training``."""
        images = self._as_compute_dtype(ops.convert_to_tensor(images))
        if not training:
            return images
        rank = len(images.shape)
        axes = (rank - 2, rank - 1) if self.data_format == "channels_first" else (
            rank - 3, rank - 2)
        return self._adjust(images, transformation["contrast_factor"], axes)

    def _adjust(self, images, factor, axes):
        mean = ops.mean(images, axis=axes, keepdims=True)
        out = ops.add(ops.multiply(ops.subtract(images, mean), factor), mean)
        return ops.clip(out, *self.value_range)

    def transform_bounding_boxes(self, bounding_boxes, transformation=None, training=True):
        """A colour change: boxes unchanged (Keras)."""
        return bounding_boxes

    def transform_segmentation_masks(self, segmentation_masks, transformation=None,
                                     training=True):
        """A colour change: masks unchanged (Keras)."""
        return segmentation_masks

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor,
                "value_range": self.value_range}
