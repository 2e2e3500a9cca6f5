"""Keras 3's ``keras.random`` namespace: random draws with Keras's names and signatures.

Draws are counter-based (Philox4x64-10): each value is a pure function of a key, a counter
and its index, so results do not depend on execution order, and eager and compiled code
draw the same values. ``seed`` is an int (the same values every call), a
:class:`SeedGenerator` (advances with each draw) or None (the global generator, made
reproducible by :func:`set_seed`). See lamina/random/seed_generator.py for the keys.
"""
from __future__ import annotations

from ..ops.random import (random_bernoulli, random_normal, random_randint,
                          random_truncated_normal, random_uniform)
from ..ops.random import dropout as _dropout
from ..ops.random_distributions import (random_beta, random_binomial, random_categorical,
                                        random_gamma, random_shuffle)
from ..ops.seed_generator import SeedGenerator, global_seed, set_seed

__all__ = ["SeedGenerator", "set_seed", "global_seed", "uniform", "normal",
           "truncated_normal", "randint", "bernoulli", "dropout", "gamma", "beta", "binomial",
           "categorical", "shuffle"]


def uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    """Uniform values in [minval, maxval); ``dtype`` a float dtype (default floatx()).

    Args:
        shape: the output's shape, a tuple of ints.
        minval: the lower bound (included).
        maxval: the upper bound (excluded).
        dtype: a float dtype (default ``floatx()``).
        seed: an int (the same values every call), a ``SeedGenerator`` (new values each
            call) or None (the global generator, see ``set_seed``).

    Returns:
        A tensor of shape ``shape``.

    Example:

    >>> lamina.random.uniform((2, 3), seed=1)
    """
    return random_uniform(shape, minval=minval, maxval=maxval, dtype=dtype, seed=seed)


def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Normal values with ``mean`` and ``stddev``.

    Args:
        shape: the output's shape, a tuple of ints.
        mean: the distribution's mean.
        stddev: its standard deviation.
        dtype: a float dtype (default ``floatx()``).
        seed: an int (the same values every call), a ``SeedGenerator`` (new values each
            call) or None (the global generator, see ``set_seed``).

    Returns:
        A tensor of shape ``shape``.
    """
    return random_normal(shape, mean=mean, stddev=stddev, dtype=dtype, seed=seed)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Normal values, those more than two ``stddev`` from ``mean`` re-drawn.

    Args:
        shape: the output's shape, a tuple of ints.
        mean: the distribution's mean.
        stddev: its standard deviation before truncation.
        dtype: a float dtype (default ``floatx()``).
        seed: an int (the same values every call), a ``SeedGenerator`` (new values each
            call) or None (the global generator, see ``set_seed``).

    Returns:
        A tensor of shape ``shape``.
    """
    return random_truncated_normal(shape, mean=mean, stddev=stddev, dtype=dtype, seed=seed)


def randint(shape, minval, maxval, dtype="int32", seed=None):
    """Integers uniform in [minval, maxval).

    Args:
        shape: the output's shape, a tuple of ints.
        minval: the lowest value (included).
        maxval: the bound (excluded).
        dtype: an integer dtype (default int32).
        seed: an int (the same values every call), a ``SeedGenerator`` (new values each
            call) or None (the global generator, see ``set_seed``).

    Returns:
        A tensor of shape ``shape``.
    """
    return random_randint(shape, minval, maxval, dtype=dtype, seed=seed)


def bernoulli(shape, p=0.5, dtype=None, seed=None):
    """1 with probability ``p``, else 0 (float by default; bool and integer dtypes too).

    Args:
        shape: the output's shape, a tuple of ints.
        p: the probability of a 1.
        dtype: the result's dtype (default ``floatx()``).
        seed: an int (the same values every call), a ``SeedGenerator`` (new values each
            call) or None (the global generator, see ``set_seed``).

    Returns:
        A tensor of shape ``shape``.
    """
    return random_bernoulli(shape, p=p, dtype=dtype, seed=seed)


def dropout(inputs, rate, noise_shape=None, seed=None):
    """``inputs`` with each element zeroed with probability ``rate``, the rest scaled by
    ``1 / (1 - rate)``; ``noise_shape`` broadcasts the mask (None entries: inputs' size).

    Args:
        inputs: the tensor to drop from.
        rate: the probability of zeroing an element, in [0, 1).
        noise_shape: the mask's shape, broadcast to ``inputs`` (None: inputs' shape).
        seed: an int (the same values every call), a ``SeedGenerator`` (new values each
            call) or None (the global generator, see ``set_seed``).

    Returns:
        A tensor like ``inputs``.
    """
    return _dropout(inputs, rate, noise_shape=noise_shape, seed=seed)


def gamma(shape, alpha, dtype=None, seed=None):
    """Gamma(``alpha``, scale 1) values; ``alpha`` a number or a tensor broadcastable to
    ``shape``.

    Args:
        shape: the output's shape, a tuple of ints.
        alpha: the shape parameter (> 0).
        dtype: a float dtype (default ``floatx()``).
        seed: an int (the same values every call), a ``SeedGenerator`` (new values each
            call) or None (the global generator, see ``set_seed``).

    Returns:
        A tensor of shape ``shape``.
    """
    return random_gamma(shape, alpha, dtype=dtype, seed=seed)


def beta(shape, alpha, beta, dtype=None, seed=None):
    """Beta(``alpha``, ``beta``) values in [0, 1].

    Args:
        shape: the output's shape, a tuple of ints.
        alpha: the first shape parameter (> 0).
        beta: the second shape parameter (> 0).
        dtype: a float dtype (default ``floatx()``).
        seed: an int (the same values every call), a ``SeedGenerator`` (new values each
            call) or None (the global generator, see ``set_seed``).

    Returns:
        A tensor of shape ``shape``.
    """
    return random_beta(shape, alpha, beta, dtype=dtype, seed=seed)


def binomial(shape, counts, probabilities, dtype=None, seed=None):
    """Successes in ``counts`` trials each succeeding with ``probabilities`` (floatx() by
    default, as Keras).

    Args:
        shape: the output's shape, a tuple of ints.
        counts: the number of trials (a number or a tensor broadcastable to ``shape``).
        probabilities: each trial's probability of success.
        dtype: the result's dtype (default ``floatx()``).
        seed: an int (the same values every call), a ``SeedGenerator`` (new values each
            call) or None (the global generator, see ``set_seed``).

    Returns:
        A tensor of shape ``shape``.
    """
    return random_binomial(shape, counts, probabilities, dtype=dtype, seed=seed)


def categorical(logits, num_samples, dtype="int32", seed=None):
    """``num_samples`` class indices per row of ``logits`` (batch, classes), class ``c``
    drawn with probability ``softmax(logits)[c]``.

    Args:
        logits: a 2-D tensor (batch, classes) of unnormalized log-probabilities.
        num_samples: how many indices to draw per row.
        dtype: an integer dtype (default int32).
        seed: an int (the same values every call), a ``SeedGenerator`` (new values each
            call) or None (the global generator, see ``set_seed``).

    Returns:
        A tensor (batch, num_samples) of class indices.
    """
    return random_categorical(logits, num_samples, dtype=dtype, seed=seed)


def shuffle(x, axis=0, seed=None):
    """``x`` with its slices along ``axis`` in a random order.

    Args:
        x: the tensor to shuffle.
        axis: the axis whose slices are permuted.
        seed: an int (the same values every call), a ``SeedGenerator`` (new values each
            call) or None (the global generator, see ``set_seed``).

    Returns:
        A tensor like ``x``.
    """
    return random_shuffle(x, axis=axis, seed=seed)
