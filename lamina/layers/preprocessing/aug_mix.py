"""Keras 3's ``AugMix``: ``num_chains`` chains of up to ``chain_depth`` random
augmentations, mixed with Dirichlet(alpha) weights, then blended with the input by a
Beta(alpha, alpha) weight and clipped to ``value_range``."""
from __future__ import annotations

import numbers

from ... import ops, random
from .augmentation_base import AugmentationLayer, keras_factor, value_range_pair
from .rand_augment import make_augmentations, run_augmentation

ALL_OPS = ("shear", "translation", "rotation", "posterization", "solarization",
           "auto_contrast", "equalization", "brightness", "color_degeneration", "contrast",
           "sharpness")
SAFE_OPS = ALL_OPS[:7]


class AugMix(AugmentationLayer):
    """Each chain step picks one of the augmentations or none (``all_ops=False``: the
    first seven, without brightness, colour, contrast and sharpness), one pick per step
    for the whole batch. Keras picks with Python's unseeded ``random``; Lamina draws the
    picks from the layer's seed generator, so seeds repeat and graph mode draws what eager
    draws.

    Args:
        value_range: ``(low, high)``, the range of the input pixel values (e.g. ``(0, 255)`` or
            ``(0, 1)``); the output is clipped to it.
        num_chains: Number of augmentation chains mixed per image.
        chain_depth: Number of augmentations per chain.
        factor: Strength of the augmentations: a number ``f`` in [0, 1] for ``(0, f)``, or a
            pair.
        alpha: Concentration of the Dirichlet and Beta draws of the mixing weights.
        all_ops: Whether to use all augmentations, including brightness, colour, contrast and
            sharpness.
        interpolation: Interpolation of pixel values between grid points: 'bilinear' or
            'nearest'.
        seed: Integer seed of the layer's random draws; None draws a random seed.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
    """

    def __init__(self, value_range=(0, 255), num_chains=3, chain_depth=3, factor=0.3,
                 alpha=1.0, all_ops=True, interpolation="bilinear", seed=None,
                 data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.value_range = value_range_pair(self.name, value_range, sort=False)
        for arg, value in (("num_chains", num_chains), ("chain_depth", chain_depth)):
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
                raise ValueError(f"{self.name}: argument '{arg}' must be a positive int; "
                                 f"received {value!r}")
        if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or alpha <= 0:
            raise ValueError(f"{self.name}: argument 'alpha' must be a positive number; "
                             f"received {alpha!r}")
        self.num_chains, self.chain_depth = int(num_chains), int(chain_depth)
        self.factor = keras_factor(self.name, "factor", factor, 0.0, 1.0)
        self.alpha = alpha
        self.all_ops = bool(all_ops)
        self.interpolation = interpolation
        self._augmentations = make_augmentations(ALL_OPS if self.all_ops else SAFE_OPS,
                                                 self.factor, self.value_range,
                                                 interpolation, seed, data_format,
                                                 self.seed_generator)

    def transform(self, images, labels, training):
        dtype, alpha = images.dtype, float(self.alpha)
        gammas = random.gamma((self.num_chains,), alpha, dtype=dtype, seed=self.seed_generator)
        chain_weights = ops.divide(gammas, ops.sum(gammas))
        keep = random.beta((), alpha, alpha, dtype=dtype, seed=self.seed_generator)
        count = len(self._augmentations)
        picks = random.randint((self.num_chains, self.chain_depth), 0, count + 1,
                               seed=self.seed_generator)
        mixed = ops.zeros_like(images)
        for c in range(self.num_chains):
            chain = images
            for d in range(self.chain_depth):
                for index, layer in enumerate(self._augmentations):
                    chain = ops.where(ops.equal(picks[c, d], index),
                                      run_augmentation(layer, chain), chain)
            mixed = ops.add(mixed, ops.multiply(chain, chain_weights[c]))
        out = ops.add(ops.multiply(keep, images), ops.multiply(ops.subtract(1.0, keep), mixed))
        return ops.clip(out, float(self.value_range[0]), float(self.value_range[1])), labels

    def get_config(self) -> dict:
        return {**super().get_config(), "value_range": list(self.value_range),
                "num_chains": self.num_chains, "chain_depth": self.chain_depth,
                "factor": list(self.factor), "alpha": self.alpha, "all_ops": self.all_ops,
                "interpolation": self.interpolation}
