"""Python generators, iterables of batches and ``PyDataset``s as epochs of batches."""
from __future__ import annotations

import itertools

from .. import tree
from .array_adapter import apply_class_weight, to_host


def unpack_x_y_sample_weight(data):
    """Keras's convention: a batch is ``x``, ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``."""
    if isinstance(data, tuple):
        if len(data) == 1:
            return data[0], None, None
        if len(data) == 2:
            return data[0], data[1], None
        if len(data) == 3:
            return data
        raise ValueError(f"a batch must be x, (x,), (x, y) or (x, y, sample_weight); "
                         f"received a tuple of {len(data)} elements")
    return data, None, None


class GeneratorDataAdapter:
    """Batches from an iterable. A re-iterable object (a list of batches, a class with
    ``__iter__``) starts over every epoch; a one-shot generator is consumed across epochs,
    ``steps`` batches at a time."""

    def __init__(self, data, steps=None, what: str = "fit", class_weight=None):
        self.data = data
        self.class_weight = class_weight
        self.steps = steps
        self.one_shot = iter(data) is data
        self._iterator = iter(data) if self.one_shot else None
        try:
            length = len(data)
        except TypeError:
            length = None
        self.num_batches = steps if steps is not None else length
        self.what = what

    def epoch(self):
        source = self._iterator if self.one_shot else iter(self.data)
        if self.steps is not None:
            source = itertools.islice(source, self.steps)
        for batch in source:
            yield _weighted(self.what, unpack_x_y_sample_weight(batch), self.class_weight)


class PyDatasetAdapter:
    """Batches ``dataset[i]`` for ``i < len(dataset)``, then ``dataset.on_epoch_end()``."""

    def __init__(self, dataset, steps=None, shuffle=False, what: str = "fit",
                 class_weight=None):
        self.dataset = dataset
        self.shuffle = shuffle
        self.what = what
        self.class_weight = class_weight
        count = len(dataset)
        self.num_batches = min(count, steps) if steps else count

    def epoch(self):
        import random
        order = list(range(len(self.dataset)))
        if self.shuffle:
            random.shuffle(order)
        for index in order[:self.num_batches]:
            yield _weighted(self.what, unpack_x_y_sample_weight(self.dataset[index]),
                            self.class_weight)
        self.dataset.on_epoch_end()


def _weighted(what: str, batch, class_weight):
    """``(x, y, sample_weight)`` with the class weights of ``y`` folded into the sample
    weights (Keras 3 applies ``class_weight`` to every batch of a generator too)."""
    if class_weight is None:
        return batch
    x, y, sample_weight = batch
    if y is None:
        raise ValueError(f"{what}: 'class_weight' needs targets y; the data's batches hold "
                         f"x only")
    host_y = tree.map_structure(to_host, y)
    host_weight = to_host(sample_weight) if sample_weight is not None else None
    return x, y, apply_class_weight(what, host_y, host_weight, class_weight)
