"""Python generators, iterables of batches and ``PyDataset``s as epochs of batches."""
from __future__ import annotations

import itertools
import random

from .. import tree
from .py_dataset import check_max_queue_size, check_workers
from .array_adapter import apply_class_weight, to_host
from .prefetch import prefetch, uses_workers


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
    ``__iter__``) starts a new pass whenever asked; a one-shot generator (``one_shot``)
    has one pass, which the epochs share."""

    def __init__(self, data, what: str = "fit", class_weight=None):
        self.data = data
        self.class_weight = class_weight
        self.one_shot = iter(data) is data
        self._iterator = iter(data) if self.one_shot else None
        try:
            self.num_batches = len(data)        # one pass; None: found out by running out
        except TypeError:
            self.num_batches = None
        self.what = what

    def epoch(self):
        """One pass: the rest of a one-shot generator, a new iteration of anything else."""
        source = self._iterator if self.one_shot else iter(self.data)
        for batch in source:
            yield _weighted(self.what, unpack_x_y_sample_weight(batch), self.class_weight)


class PyDatasetAdapter:
    """Batches ``dataset[i]`` for ``i < dataset.num_batches``; fetched ahead by threads or
    processes when the dataset (or the fit/evaluate/predict call, through ``pipeline``)
    asks for workers. ``on_epoch_begin`` / ``on_epoch_end`` are the dataset's, run by the
    loop around each of its epochs (which may end within a pass). An infinite dataset
    (``num_batches`` None) needs ``steps``; its index keeps counting across passes, as
    Keras's does."""

    def __init__(self, dataset, steps=None, shuffle=False, what: str = "fit",
                 class_weight=None, pipeline=None):
        self.dataset = dataset
        self.shuffle = shuffle
        self.what = what
        self.class_weight = class_weight
        count = _count(dataset)
        self.infinite = count is None
        if self.infinite and steps is None:
            raise ValueError(f"{what}: {type(dataset).__name__} is an infinite PyDataset "
                             f"(num_batches is None); pass argument "
                             f"'{_steps_argument(what)}' to say how many batches to take")
        self.num_batches = count            # one pass; None: infinite
        self._next_index = 0
        settings = {"workers": getattr(dataset, "workers", 1),     # a duck-typed Sequence
                    "use_multiprocessing": getattr(dataset, "use_multiprocessing", False),
                    "max_queue_size": getattr(dataset, "max_queue_size", 10)}
        settings.update({k: v for k, v in (pipeline or {}).items() if v is not None})
        self.workers = check_workers(what, settings["workers"])
        self.use_multiprocessing = bool(settings["use_multiprocessing"])
        self.max_queue_size = check_max_queue_size(what, settings["max_queue_size"])

    def on_epoch_begin(self) -> None:
        begin = getattr(self.dataset, "on_epoch_begin", None)
        if begin is not None:
            begin()

    def on_epoch_end(self) -> None:
        self.dataset.on_epoch_end()

    def epoch(self) -> "_PyDatasetPass":
        """One pass over the dataset's indices (in a new order when shuffling)."""
        if self.infinite:
            return _PyDatasetPass(self, None)
        order = list(range(_count(self.dataset)))     # on_epoch_end may change it
        if self.shuffle:
            random.shuffle(order)
        return _PyDatasetPass(self, order)

    def _source(self, indices):
        if uses_workers(self.workers, self.use_multiprocessing):
            return prefetch(self.dataset, indices, self.workers, self.use_multiprocessing,
                            self.max_queue_size)
        return (self.dataset[index] for index in indices)


class _PyDatasetPass:
    """An iterator over one pass of a PyDataset. ``pause()`` (an epoch ended within the
    pass) joins its workers before the dataset's ``on_epoch_end`` runs; the next batch
    starts them again at the next index. ``close()`` ends the pass."""

    def __init__(self, adapter: PyDatasetAdapter, order: list | None):
        self._adapter = adapter
        self._order = order                 # None: infinite, from adapter._next_index on
        self._position = 0
        self._source = None

    def __iter__(self):
        return self

    def __next__(self):
        adapter = self._adapter
        if self._source is None:
            indices = itertools.count(adapter._next_index) if self._order is None \
                else self._order[self._position:]
            self._source = adapter._source(indices)
        try:
            batch = next(self._source)
        except StopIteration:
            self.close()
            raise
        self._position += 1
        if self._order is None:
            adapter._next_index += 1
        return _weighted(adapter.what, unpack_x_y_sample_weight(batch), adapter.class_weight)

    def pause(self) -> None:
        source, self._source = self._source, None
        if source is not None:
            source.close()                  # joins the workers

    close = pause


def _count(dataset):
    return dataset.num_batches if hasattr(dataset, "num_batches") else len(dataset)


def _steps_argument(what: str) -> str:
    if what == "fit":
        return "steps_per_epoch"
    return "validation_steps" if what.startswith("fit") else "steps"


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
