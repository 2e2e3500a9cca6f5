"""In-memory arrays (numpy, lists, tensors; nested in lists/dicts) cut into batches.

The arrays stay on the host; each batch is sliced there and copied to the active backend
(``ops.convert_to_tensor``) only when the step needs it. Float arrays become floatx, as in
Keras 3.
"""
from __future__ import annotations

import math

import numpy as np

from .. import tree
from ..dtypes import floatx


def to_host(x):
    """A leaf as a host numpy array (tensors are copied back once)."""
    if x is None:
        return None
    if hasattr(x, "numpy") and not isinstance(x, np.ndarray):
        x = x.numpy()
    array = np.asarray(x)
    if array.dtype.kind == "f" and array.dtype != np.dtype(floatx()):
        array = array.astype(floatx())
    if array.dtype.kind in "OUS":
        raise TypeError(f"expected numeric arrays as model data; received an array of dtype "
                        f"{array.dtype}")
    return array


def num_samples(structure, what: str) -> int | None:
    sizes = {len(a) if a.ndim else None for a in tree.flatten(structure) if a is not None}
    if None in sizes:
        raise ValueError(f"{what} must be arrays with a batch dimension; received a scalar")
    if len(sizes) > 1:
        raise ValueError(f"all arrays in {what} must have the same number of samples; "
                         f"received sizes {sorted(sizes)}")
    return sizes.pop() if sizes else None


class ArrayDataAdapter:
    """Batches of ``(x, y, sample_weight)`` from arrays, reshuffled every epoch."""

    def __init__(self, x, y=None, sample_weight=None, batch_size=None, shuffle=False,
                 steps=None, class_weight=None, what: str = "fit", argument: str = "x"):
        self.x = tree.map_structure(to_host, x)
        self.y = tree.map_structure(to_host, y) if y is not None else None
        self.sample_weight = to_host(sample_weight) if sample_weight is not None else None
        n = num_samples(self.x, f"{what}: x")
        if n == 0:
            shapes = [tuple(a.shape) for a in tree.flatten(self.x) if a is not None]
            raise ValueError(f"{what}: argument '{argument}' holds no samples; received "
                             f"arrays of shape {', '.join(map(str, shapes))}. Pass at "
                             f"least one sample")
        for name, value in (("y", self.y), ("sample_weight", self.sample_weight)):
            if value is None:
                continue
            m = num_samples(value, f"{what}: {name}")
            if m != n:
                raise ValueError(f"{what}: x and {name} must have the same number of samples; "
                                 f"received x with {n} samples and {name} with {m}")
        if class_weight is not None:
            self.sample_weight = _apply_class_weight(what, self.y, self.sample_weight,
                                                     class_weight)
        self.size = n
        self.batch_size = int(batch_size or 32)
        if self.batch_size <= 0:
            raise ValueError(f"{what}: argument 'batch_size' must be a positive int; "
                             f"received {batch_size}")
        self.shuffle = shuffle
        batches = math.ceil(n / self.batch_size) if n else 0
        self.num_batches = min(batches, steps) if steps else batches
        # numpy's global generator, as Keras: utils.set_random_seed makes shuffling repeatable
        self._rng = np.random

    def epoch(self):
        """Yield ``(x, y, sample_weight)`` batches (host arrays) for one epoch."""
        order = np.arange(self.size)
        if self.shuffle == "batch":
            starts = np.arange(0, self.size, self.batch_size)
            self._rng.shuffle(starts)
            order = np.concatenate([order[s:s + self.batch_size] for s in starts]) \
                if len(starts) else order
        elif self.shuffle:
            order = self._rng.permutation(self.size)
        for step in range(self.num_batches):
            index = order[step * self.batch_size:(step + 1) * self.batch_size]
            if not self.shuffle and len(index):
                index = slice(int(index[0]), int(index[-1]) + 1)     # contiguous: a view

            def take(a):
                return None if a is None else a[index]
            yield (tree.map_structure(take, self.x),
                   tree.map_structure(take, self.y) if self.y is not None else None,
                   take(self.sample_weight))


def split_validation(x, y, sample_weight, validation_split: float):
    """Keras's split: the last ``validation_split`` of the samples, before shuffling."""
    if not 0.0 < validation_split < 1.0:
        raise ValueError(f"fit: argument 'validation_split' must be in (0, 1); received "
                         f"{validation_split}")
    x = tree.map_structure(to_host, x)
    y = tree.map_structure(to_host, y) if y is not None else None
    sample_weight = to_host(sample_weight) if sample_weight is not None else None
    n = num_samples(x, "fit: x")
    split = int(math.floor(n * (1.0 - validation_split)))
    if split == 0 or split == n:
        raise ValueError(f"fit: validation_split={validation_split} leaves an empty "
                         f"{'training' if split == 0 else 'validation'} set for {n} samples")

    def head(a):
        return None if a is None else a[:split]

    def tail(a):
        return None if a is None else a[split:]
    train = (tree.map_structure(head, x), tree.map_structure(head, y), head(sample_weight))
    val = (tree.map_structure(tail, x), tree.map_structure(tail, y), tail(sample_weight))
    return train, val


def _apply_class_weight(what, y, sample_weight, class_weight: dict):
    if y is None:
        raise ValueError(f"{what}: 'class_weight' needs targets y")
    leaves = tree.flatten(y)
    if len(leaves) != 1:
        raise ValueError(f"{what}: 'class_weight' is supported for models with one output "
                         f"only; received {len(leaves)} targets")
    target = leaves[0]
    if target.ndim > 2:
        raise ValueError(f"{what}: class_weight is not supported for 3+ dimensional targets; "
                         f"received targets of shape {target.shape}")
    if target.ndim == 2 and target.shape[1] > 1:
        classes = np.argmax(target, axis=1)
    elif target.ndim == 2:
        classes = np.rint(target[:, 0]).astype(np.int64)
    else:
        classes = np.rint(target).astype(np.int64)
    missing = sorted(set(np.unique(classes).tolist()) - set(class_weight))
    if missing:
        raise ValueError(f"{what}: class_weight has no weight for class(es) {missing} found in "
                         f"y; received keys {sorted(class_weight)}")
    weights = np.array([class_weight[int(c)] for c in classes], dtype=floatx())
    return weights if sample_weight is None else weights * sample_weight
