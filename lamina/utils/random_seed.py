"""``set_random_seed``: one call that makes a script reproducible (Keras 3's
``keras.utils.set_random_seed``)."""
from __future__ import annotations

import numbers
import random

import numpy

from .. import random as lamina_random

_MAX_SEED = 2**32 - 1          # numpy's legacy global generator takes seeds in [0, 2**32)


def set_random_seed(seed: int) -> None:
    """Seed Python's ``random``, numpy's global generator and Lamina's random draws.

    Afterwards initializers, dropout, ``fit``'s shuffling and anything else drawing with
    ``seed=None`` repeat from run to run. GPU (cupy) reductions may still differ in their
    last bits between runs.

    Args:
        seed: int, the seed.

    Raises:
        TypeError: ``seed`` is not an int.
        ValueError: ``seed`` is outside [0, 2**32 - 1].
    """
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"set_random_seed: argument 'seed' must be an int; received "
                        f"{seed!r} of type {type(seed).__name__}")
    seed = int(seed)
    if not 0 <= seed <= _MAX_SEED:
        raise ValueError(f"set_random_seed: argument 'seed' must be in [0, 2**32 - 1] "
                         f"(numpy's limit); received {seed}")
    random.seed(seed)
    numpy.random.seed(seed)
    lamina_random.set_seed(seed)
