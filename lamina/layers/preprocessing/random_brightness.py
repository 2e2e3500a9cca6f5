"""``RandomBrightness``: a random offset added to each image while training."""
from __future__ import annotations

from ... import ops, random
from .base_image_layer import RandomImageLayer
from .image_utils import check_value_range, factor_range


class RandomBrightness(RandomImageLayer):
    """Keras 3's ``RandomBrightness``: when ``training``, each image gets
    ``delta * (high - low)`` added, ``delta`` drawn uniformly from ``factor`` (a number
    ``f`` for ``(-f, f)`` or a pair, in [-1, 1]), and is clipped to
    ``value_range = (low, high)``.

    Args:
        factor: Range of the brightness delta, as a fraction of the value range: a number ``f``
            for ``(-f, f)`` or a pair, in [-1, 1].
        value_range: ``(low, high)``, the range of the input pixel values (e.g. ``(0, 255)`` or
            ``(0, 1)``); the output is clipped to it.
        seed: Integer seed of the layer's random draws; None draws a random seed.
    """

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)          # data_format arrives in kwargs
        self._set_factor(factor)
        self.value_range = sorted(check_value_range(self.name, value_range))

    def _set_factor(self, factor):
        """Keras's setter (its tests call it): validates ``factor`` and stores the pair."""
        self.factor = factor_range(self.name, "factor", factor)

    def augment(self, images):
        low, high = self.value_range
        delta = random.uniform((images.shape[0], 1, 1, 1), *self.factor, dtype=images.dtype,
                               seed=self.seed_generator)
        return ops.clip(ops.add(images, ops.multiply(delta, float(high - low))), low, high)

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
