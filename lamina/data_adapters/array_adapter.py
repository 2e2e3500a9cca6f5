"""In-memory arrays (numpy, lists, tensors; nested in lists/dicts) cut into batches.

The arrays stay on the host; each batch is sliced there and copied to the active backend
(``ops.convert_to_tensor``) only when the step needs it. Float arrays become floatx, as in
Keras 3.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import tree
from ..dtypes import floatx
from ..errors import ArgumentTypeError


def to_host(x, what: str = "", argument: str = ""):
    """A leaf as a host numpy array (tensors are copied back once). ``what`` and
    ``argument`` (``"fit"``, ``"y"``) name it in errors."""
    if x is None:
        return None
    if hasattr(x, "numpy") and not isinstance(x, np.ndarray):
        x = x.numpy()
    array = np.asarray(x)
    if array.dtype.kind == "f" and array.dtype != np.dtype(floatx()):
        array = array.astype(floatx())
    if array.dtype.kind in "OUS":
        raise ArgumentTypeError(_not_numeric(array, what, argument))
    return array


def _not_numeric(array, what: str, argument: str) -> str:
    where = f"{what}: argument '{argument}'" if what and argument else "model data"
    kind = "strings" if array.dtype.kind in "US" else "Python objects"
    text = f"{where} holds {kind} (dtype {array.dtype}); a model takes numbers"
    if argument == "y" and kind == "strings":
        return text + (": integer-encode the labels (classes, y = np.unique(y, "
                       "return_inverse=True)) and use a sparse_categorical_crossentropy "
                       "loss, or map them with a lamina.layers.StringLookup layer before "
                       "fit")
    if kind == "strings":
        return text + (": start the model with a lamina.layers.StringLookup or "
                       "TextVectorization layer, or encode the strings as numbers first")
    return text + ": convert it to a numeric numpy array (e.g. np.asarray(x, 'float32'))"


def lists_to_arrays(value, what: str, argument: str):
    """Nested Python lists of numbers become numpy arrays (as Keras 2's list adapter and
    numpy do: ``[[1, 2], [3, 4]]`` is 2 samples of 2 features); a list holding arrays stays
    a structure (one entry per model input), its number lists converted in turn."""
    if type(value) is list and _numbers_only(value):
        try:
            return np.asarray(value)
        except ValueError:
            raise ValueError(f"{what}: argument '{argument}' is a ragged nested list (its "
                             f"rows have different lengths); pass rows of one length, or "
                             f"a numpy array") from None
    if type(value) in (list, tuple):
        return type(value)(lists_to_arrays(v, what, argument) for v in value)
    if type(value) is dict:
        return {k: lists_to_arrays(v, what, argument) for k, v in value.items()}
    return value


def _numbers_only(value) -> bool:
    """Whether ``value`` is a number or nested lists/tuples of numbers only (an empty list
    counts: it becomes an empty array)."""
    stack = [value]
    while stack:                   # a loop, not recursion: deep lists are lists too
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(item)
        elif not isinstance(item, numbers.Number):
            return False
    return True


def host_structure(value, what: str, argument: str):
    """``value`` (arrays, tensors, nested Python lists, in lists/tuples/dicts) as the same
    structure of host numpy arrays."""
    if value is None:
        return None
    return tree.map_structure(lambda leaf: to_host(leaf, what, argument),
                              lists_to_arrays(value, what, argument))


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
                 steps=None, class_weight=None, what: str = "fit", argument: str = "x",
                 single_batch: bool = False):
        """``single_batch``: all samples in one batch (``train_on_batch`` & co.);
        ``steps``: the batches the caller asks for, which set the batch size when
        ``batch_size`` is None (Keras 3)."""
        self.x = host_structure(x, what, argument)
        self.y = host_structure(y, what, "y")
        self.sample_weight = to_host(lists_to_arrays(sample_weight, what, "sample_weight"))
        n = num_samples(self.x, f"{what}: x")
        if n is None:
            raise ValueError(f"{what}: argument '{argument}' holds no arrays; received "
                             f"{_describe(x)}. Pass at least one sample")
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
            self.sample_weight = apply_class_weight(what, self.y, self.sample_weight,
                                                     class_weight)
        self.size = n
        if single_batch:
            batch_size = n
        elif batch_size is None:
            # Keras 3: the batch size that cuts the data into `steps` batches, else 32.
            batch_size = math.ceil(n / steps) if steps else 32
        if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral) \
                or batch_size < 1:
            raise ValueError(f"{what}: argument 'batch_size' must be a positive int or None; "
                             f"received {batch_size!r}")
        self.batch_size = int(batch_size)
        self.shuffle = shuffle
        # One pass over the data; how many of them an epoch takes (the caller's `steps`)
        # is the loop's business (trainers/epoch_batches.py).
        self.num_batches = math.ceil(n / self.batch_size) if n else 0
        # numpy's global generator, as Keras: utils.set_random_seed makes shuffling repeatable
        self._rng = np.random

    def epoch(self):
        """Yield ``(x, y, sample_weight)`` batches (host arrays) for one pass over the data,
        in a new order when shuffling."""
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


def _describe(x) -> str:
    if x is None:
        return "None"
    try:
        return f"a {type(x).__name__} of length {len(x)}"
    except TypeError:
        return f"a {type(x).__name__}"


def split_validation(x, y, sample_weight, validation_split: float):
    """Keras's split: the last ``validation_split`` of the samples, before shuffling."""
    if not 0.0 < validation_split < 1.0:
        raise ValueError(f"fit: argument 'validation_split' must be in (0, 1); received "
                         f"{validation_split}")
    x = host_structure(x, "fit", "x")
    y = host_structure(y, "fit", "y")
    sample_weight = to_host(lists_to_arrays(sample_weight, "fit", "sample_weight"))
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


def apply_class_weight(what, y, sample_weight, class_weight: dict):
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
