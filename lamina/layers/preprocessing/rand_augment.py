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


RAND_AUGMENT_OPS = ("shear", "translation", "rotation", "brightness", "color_degeneration",
                    "contrast", "sharpness", "solarization", "posterization", "auto_contrast",
                    "equalization")


def make_augmentations(names, f, vr, interpolation, seed, data_format, seed_generator):
    """The named augmentation layers at strength ``f`` (a pair), drawing from
    ``seed_generator`` (RandAugment's and AugMix's recipes)."""
    common = dict(seed=seed, data_format=data_format)
    makers = {
        "shear": lambda: RandomShear(x_factor=f, y_factor=f, interpolation=interpolation,
                                     **common),
        "translation": lambda: RandomTranslation(f, f, interpolation=interpolation, **common),
        "rotation": lambda: RandomRotation(f, interpolation=interpolation, **common),
        "brightness": lambda: RandomBrightness(f, value_range=vr, **common),
        "color_degeneration": lambda: RandomColorDegeneration(f, value_range=vr, **common),
        "contrast": lambda: RandomContrast(f, value_range=vr, **common),
        "sharpness": lambda: RandomSharpness(f, value_range=vr, **common),
        "solarization": lambda: Solarization(addition_factor=f, threshold_factor=f,
                                             value_range=vr, seed=seed),
        "posterization": lambda: RandomPosterization(max(1, int(8 * f[1])), value_range=vr,
                                                     **common),
        "auto_contrast": lambda: AutoContrast(value_range=vr),
        "equalization": lambda: Equalization(value_range=vr, data_format=data_format),
    }
    made = [makers[name]() for name in names]
    for layer in made:
        if getattr(layer, "seed_generator", None) is not None:
            layer.seed_generator = seed_generator
    return made


def run_augmentation(layer, images):
    """One augmentation layer's training transform of an NHWC batch."""
    if hasattr(layer, "augment"):
        return layer.augment(images)
    return layer.transform(images, None, True)[0]


class RandAugment(AugmentationLayer):
    """The eleven, in Keras's order: RandomShear, RandomTranslation, RandomRotation,
    RandomBrightness, RandomColorDegeneration, RandomContrast, RandomSharpness,
    Solarization, RandomPosterization (``max(1, int(8 * factor[1]))`` bits), AutoContrast,
    Equalization. ``factor``: a number ``f`` in [0, 1] for ``(0, f)``, or a pair. Every
    draw comes from this layer's seed generator; each op draws its own parameters (Keras
    draws each augmentation's parameters once per call and reuses them across ops).

    Args:
        value_range: ``(low, high)``, the range of the input pixel values (e.g. ``(0, 255)`` or
            ``(0, 1)``); the output is clipped to it.
        num_ops: Number of augmentations applied to each image.
        factor: Strength of the augmentations: a number ``f`` in [0, 1] for ``(0, f)``, or a
            pair.
        interpolation: Interpolation of pixel values between grid points: 'bilinear' or
            'nearest'.
        seed: Integer seed of the layer's random draws; None draws a random seed.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
    """

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
        self._augmentations = make_augmentations(RAND_AUGMENT_OPS, self.factor,
                                                 self.value_range, interpolation, seed,
                                                 data_format, self.seed_generator)

    def transform(self, images, labels, training):
        count = len(self._augmentations)
        picks = random.randint((max(self.num_ops, 1),), 0, count, seed=self.seed_generator)
        for i in range(self.num_ops):
            for index, layer in enumerate(self._augmentations):
                images = ops.where(ops.equal(picks[i], index), run_augmentation(layer, images),
                                   images)
        return images, labels

    def get_config(self) -> dict:
        return {**super().get_config(), "value_range": list(self.value_range),
                "num_ops": self.num_ops, "factor": list(self.factor),
                "interpolation": self.interpolation}
