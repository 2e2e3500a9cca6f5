"""Keras 3's ``split_dataset``: cut a small in-memory dataset into two."""
from __future__ import annotations

import random

import numpy as np

from ..core.ignored_arguments import warn_ignored
from .sample_dataset import SampleDataset

__all__ = ["split_dataset"]

WHAT = "split_dataset"


def _samples(dataset):
    """(list of samples, batch size to restore or None)."""
    if isinstance(dataset, SampleDataset):
        return list(dataset.unbatched()), dataset.batch_size
    if isinstance(dataset, np.ndarray):
        return list(dataset), None
    if isinstance(dataset, (list, tuple)):
        kind = type(dataset).__name__
        if not dataset:
            raise ValueError(f"{WHAT}: received an empty {kind}; pass a non-empty "
                             f"{kind} of numpy arrays")
        for i, element in enumerate(dataset):
            if not isinstance(element, np.ndarray):
                raise ValueError(f"{WHAT}: expected a {kind} of numpy arrays; received "
                                 f"{type(element).__name__} at index {i}")
            if len(element) != len(dataset[0]):
                raise ValueError(f"{WHAT}: the arrays must have the same length; "
                                 f"received {len(dataset[0])} and {len(element)} (index "
                                 f"{i})")
        return list(zip(*dataset)), None
    raise TypeError(f"{WHAT}: argument 'dataset' must be a numpy array, a list/tuple of "
                    f"numpy arrays or a Lamina SampleDataset; received "
                    f"{type(dataset).__name__}")


def _size(name, size, total):
    if size is None:
        return None
    if type(size) not in (int, float):
        raise TypeError(f"{WHAT}: argument '{name}' must be an int, a float or None; "
                        f"received {type(size).__name__}")
    if (type(size) is int and not 0 < size < total) or \
            (type(size) is float and not 0 < size < 1):
        raise ValueError(f"{WHAT}: argument '{name}' must be a positive int smaller than "
                         f"{total} or a float in (0, 1); received {size}")
    return round(size * total) if type(size) is float else size


def split_sizes(left_size, right_size, total):
    """Keras's sizes: fractions of ``total`` are rounded, a missing side takes the rest."""
    if left_size is None and right_size is None:
        raise ValueError(f"{WHAT}: at least one of 'left_size' and 'right_size' must be "
                         f"given; received left_size=None and right_size=None")
    if type(left_size) is float and type(right_size) is float and \
            left_size + right_size > 1:
        raise ValueError(f"{WHAT}: left_size + right_size must be at most 1; received "
                         f"{left_size} + {right_size}")
    left, right = _size("left_size", left_size, total), _size("right_size", right_size,
                                                             total)
    left = total - right if left is None else left
    right = total - left if right is None else right
    if left + right > total:
        raise ValueError(f"{WHAT}: left_size + right_size must be at most the dataset's "
                         f"length {total}; received {left} + {right}")
    for side, count in (("left", left), ("right", right)):
        if count == 0:
            raise ValueError(f"{WHAT}: with a dataset of length {total}, left_size="
                             f"{left_size} and right_size={right_size} leave the {side} "
                             f"split empty")
    return int(left), int(right)


def _stack(items):
    if isinstance(items[0], tuple):
        return tuple(_stack(list(parts)) for parts in zip(*items))
    return np.stack(items)


def split_dataset(dataset, left_size=None, right_size=None, shuffle=False, seed=None,
                  preferred_backend=None):
    """Two SampleDatasets: the first ``left_size`` samples and the last ``right_size``
    ones (ints are counts, floats fractions), after Python's ``random.shuffle`` seeded
    with ``seed`` when ``shuffle``. A batched SampleDataset gives batched halves; arrays
    give single samples (``.batch(n)`` batches them, as tf.data's does).
    ``preferred_backend`` chooses Keras's tf.data or torch result; Lamina has one kind.

    Args:
        dataset: a ``SampleDataset``, an array, or a tuple or list of arrays.
        left_size: int (samples) or float in (0, 1) (fraction) of the first part
            (None: the complement of ``right_size``).
        right_size: int or float of the second part (None: the complement).
        shuffle: bool; shuffle the samples first (default False).
        seed: int, the shuffle's seed.
        preferred_backend: Keras's choice of tf.data or torch result; Lamina has one kind
            and warns that it ignores a value.

    Returns:
        A tuple ``(left, right)`` of datasets.
    """
    if preferred_backend is not None:
        warn_ignored(WHAT, "preferred_backend", preferred_backend, "Lamina returns its own "
                     "SampleDataset, not a tf.data or torch dataset")
    samples, batch_size = _samples(dataset)
    if not samples:
        raise ValueError(f"{WHAT}: received an empty dataset")
    if shuffle:
        # Python's generator, as Keras's; an instance leaves the global state alone
        random.Random(random.randint(0, int(1e6)) if seed is None else seed).shuffle(samples)
    left, right = split_sizes(left_size, right_size, len(samples))
    halves = (samples[:left], samples[-right:])
    return tuple(SampleDataset(half, None, lambda sample: sample, batch_size=batch_size,
                               collate=_stack) for half in halves)
