"""Keras 3's ``RandAugment``: ``num_ops`` times, one of eleven augmentations picked at
random (one pick per op for the whole batch) is applied, all at strength ``factor``."""
from __future__ import annotations

import numbers

from ... import ops, random
from .augmentation_base import AugmentationLayer, keras_factor, value_range_pair
from .color_augment import AutoContrast, RandomColorDegeneration, Solarization
from .geometry_augment import Equalization, RandomShear
from .more_augment import RandomPosterization, RandomSharpness
from .random_brightness import RandomBrightness
from .random_contrast import RandomContrast
from .random_rotation import RandomRotation
from .random_translation import RandomTranslation


class RandAugment(AugmentationLayer):
    """The eleven, in Keras's order: RandomShear, RandomTranslation, RandomRotation,
    RandomBrightness, RandomColorDegeneration, RandomContrast, RandomSharpness,
    Solarization, RandomPosterization (``max(1, int(8 * factor[1]))`` bits), AutoContrast,
    Equalization. ``factor``: a number ``f`` in [0, 1] for ``(0, f)``, or a pair. Every
    draw comes from this layer's seed generator; each op draws its own parameters (Keras
    draws each augmentation's parameters once per call and reuses them across ops)."""

    def __init__(self, value_range=(0, 255), num_ops=2, factor=0.5, interpolation="bilinear",
                 seed=None, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.value_range = value_range_pair(self.name, value_range, sort=False)
        if isinstance(num_ops, bool) or not isinstance(num_ops, numbers.Integral) or \
                num_ops < 0:
            raise ValueError(f"{self.name}: argument 'num_ops' must be a non-negative int; "
                             f"received {num_ops!r}")
        self.num_ops = int(num_ops)
        self.factor = keras_factor(self.name, "factor", factor, 0.0, 1.0)
        self.interpolation = interpolation
        f, vr = self.factor, self.value_range
        common = dict(seed=seed, data_format=data_format)
        self._augmentations = [
            RandomShear(x_factor=f, y_factor=f, interpolation=interpolation, **common),
            RandomTranslation(f, f, interpolation=interpolation, **common),
            RandomRotation(f, interpolation=interpolation, **common),
            RandomBrightness(f, value_range=vr, **common),
            RandomColorDegeneration(f, value_range=vr, **common),
            RandomContrast(f, value_range=vr, **common),
            RandomSharpness(f, value_range=vr, **common),
            Solarization(addition_factor=f, threshold_factor=f, value_range=vr, seed=seed),
            RandomPosterization(max(1, int(8 * f[1])), value_range=vr, **common),
            AutoContrast(value_range=vr),
            Equalization(value_range=vr, data_format=data_format),
        ]
        for layer in self._augmentations:
            if getattr(layer, "seed_generator", None) is not None:
                layer.seed_generator = self.seed_generator

    @staticmethod
    def _run(layer, images):
        if hasattr(layer, "augment"):
            return layer.augment(images)
        return layer.transform(images, None, True)[0]

    def transform(self, images, labels, training):
        count = len(self._augmentations)
        picks = random.randint((max(self.num_ops, 1),), 0, count, seed=self.seed_generator)
        for i in range(self.num_ops):
            for index, layer in enumerate(self._augmentations):
                images = ops.where(ops.equal(picks[i], index), self._run(layer, images),
                                   images)
        return images, labels

    def get_config(self) -> dict:
        return {**super().get_config(), "value_range": list(self.value_range),
                "num_ops": self.num_ops, "factor": list(self.factor),
                "interpolation": self.interpolation}
