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
    Keras documents) or a pair of them."""

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)          # data_format arrives in kwargs
        self.factor = factor_range(self.name, "factor", factor, 0.0, 1.0,
                                   single=lambda f: (f, f))
        self.value_range = check_value_range(self.name, value_range)

    def augment(self, images):
        lower, upper = self.factor
        scale = random.uniform((images.shape[0], 1, 1, 1), 1.0 - lower, 1.0 + upper,
                               dtype=images.dtype, seed=self.seed_generator)
        mean = ops.mean(images, axis=(1, 2), keepdims=True)
        out = ops.add(ops.multiply(ops.subtract(images, mean), scale), mean)
        return ops.clip(out, *self.value_range)

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor,
                "value_range": self.value_range}
