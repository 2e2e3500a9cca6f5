"""Random initializers with fixed parameters: RandomUniform, RandomNormal, TruncatedNormal,
and the seed handling all random initializers share.

``seed`` is an int (every call gives the same values, as in Keras 3), a
``lamina.random.SeedGenerator`` (each call draws new values from it) or None: each call
then draws new values from Lamina's global generator, so ``lamina.random.set_seed`` (or
``lamina.utils.set_random_seed``) makes a whole program's initial weights reproducible.
"""
from __future__ import annotations

import numbers

from .. import random as lamina_random
from ..core.tensor import Tensor
from ..random import SeedGenerator
from ..registry import register_builtin
from .initializer import Initializer, check_dtype, check_number, check_shape


def check_seed(name: str, seed):
    """An int, a SeedGenerator (or its serialized config) or None; else TypeError."""
    if isinstance(seed, dict) and seed.get("class_name") == "SeedGenerator":
        return SeedGenerator.from_config(seed.get("config", {}))
    if seed is None or isinstance(seed, SeedGenerator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"{name}: argument 'seed' must be an int, a "
                        f"lamina.random.SeedGenerator or None; received {seed!r}")
    return int(seed)


class RandomInitializer(Initializer):
    """Base class of random initializers: stores and serializes ``seed``."""

    def __init__(self, seed=None) -> None:
        self.seed = check_seed(type(self).__name__, seed)

    def _args(self, shape, dtype) -> tuple:
        name = type(self).__name__
        return check_shape(name, shape), check_dtype(name, dtype, float_only=True)

    def get_config(self) -> dict:
        seed = self.seed
        if isinstance(seed, SeedGenerator):
            seed = {"module": "keras.random", "class_name": "SeedGenerator",
                    "config": seed.get_config(), "registered_name": None}
        return {"seed": seed}


@register_builtin
class RandomUniform(RandomInitializer):
    """Initializer that draws values uniformly from ``[minval, maxval)``.

    The default initializer of the ``Embedding`` layer.

    Args:
        minval: The lower bound. Defaults to ``-0.05``.
        maxval: The upper bound (excluded). Defaults to ``0.05``.
        seed: An int (every call gives the same values, as in Keras 3), a
            ``lamina.random.SeedGenerator`` (each call draws new values from it) or
            ``None`` (default: each call draws from Lamina's global generator, which
            ``lamina.utils.set_random_seed`` makes reproducible).

    Example:

    >>> lamina.initializers.RandomUniform(-1.0, 1.0, seed=0)((2, 3)).shape
    (2, 3)
    """

    def __init__(self, minval: float = -0.05, maxval: float = 0.05, seed=None) -> None:
        self.minval = check_number("RandomUniform", "minval", minval)
        self.maxval = check_number("RandomUniform", "maxval", maxval)
        if self.minval > self.maxval:
            raise ValueError(f"RandomUniform: argument 'minval' ({self.minval}) must not "
                             f"exceed 'maxval' ({self.maxval})")
        super().__init__(seed)

    def __call__(self, shape, dtype=None) -> Tensor:
        shape, dtype = self._args(shape, dtype)
        return lamina_random.uniform(shape, self.minval, self.maxval, dtype=dtype,
                                     seed=self.seed)

    def get_config(self) -> dict:
        return {**super().get_config(), "minval": self.minval, "maxval": self.maxval}


class _MeanStddev(RandomInitializer):
    """Shared by the two normal initializers: ``mean`` and ``stddev`` arguments."""

    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed=None) -> None:
        self.mean = check_number(type(self).__name__, "mean", mean)
        self.stddev = check_number(type(self).__name__, "stddev", stddev, minimum=0.0)
        super().__init__(seed)

    def get_config(self) -> dict:
        return {**super().get_config(), "mean": self.mean, "stddev": self.stddev}


@register_builtin
class RandomNormal(_MeanStddev):
    """Initializer that draws values from a normal distribution.

    Args:
        mean: The mean of the values. Defaults to ``0.0``.
        stddev: Their standard deviation. Defaults to ``0.05``.
        seed: An int (every call gives the same values, as in Keras 3), a
            ``lamina.random.SeedGenerator`` (each call draws new values from it) or
            ``None`` (default: each call draws from Lamina's global generator, which
            ``lamina.utils.set_random_seed`` makes reproducible).

    Example:

    >>> lamina.initializers.RandomNormal(stddev=1.0, seed=0)((2, 3)).shape
    (2, 3)
    """

    def __call__(self, shape, dtype=None) -> Tensor:
        shape, dtype = self._args(shape, dtype)
        return lamina_random.normal(shape, self.mean, self.stddev, dtype=dtype,
                                    seed=self.seed)


@register_builtin
class TruncatedNormal(_MeanStddev):
    """Initializer that draws values from a truncated normal distribution.

    Values more than two ``stddev`` from ``mean`` are drawn again, so the actual standard
    deviation is about ``0.88 * stddev``.

    Args:
        mean: The mean of the values. Defaults to ``0.0``.
        stddev: The standard deviation before truncation. Defaults to ``0.05``.
        seed: An int (every call gives the same values, as in Keras 3), a
            ``lamina.random.SeedGenerator`` (each call draws new values from it) or
            ``None`` (default: each call draws from Lamina's global generator, which
            ``lamina.utils.set_random_seed`` makes reproducible).

    Example:

    >>> lamina.initializers.TruncatedNormal(stddev=1.0, seed=0)((2, 3)).shape
    (2, 3)
    """

    def __call__(self, shape, dtype=None) -> Tensor:
        shape, dtype = self._args(shape, dtype)
        return lamina_random.truncated_normal(shape, self.mean, self.stddev, dtype=dtype,
                                              seed=self.seed)
