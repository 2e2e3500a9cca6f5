"""``SampleDataset``: what Lamina's ``*_dataset_from_directory`` and
``timeseries_dataset_from_array`` return.

Keras returns a ``tf.data.Dataset``; Lamina has no tf.data, so these functions return a
PyDataset that ``fit``, ``evaluate`` and ``predict`` take as it is. It loads its samples
lazily, one batch at a time, and yields ``(x, y)`` batches (``x`` alone without targets);
the directory functions add Keras's ``class_names`` and ``file_paths`` attributes.
Iterating over it (``for x, y in dataset``) gives one epoch of batches.
"""
from __future__ import annotations

import numpy as np

from ..data_adapters.py_dataset import PyDataset

LABEL_MODES = ("int", "categorical", "binary", None)


def encode_labels(labels, label_mode, num_classes):
    """Keras's label encodings: int32 indices, one-hot float32 rows, or a float32
    column of 0/1 for "binary"; None without labels."""
    if labels is None or label_mode is None:
        return None
    labels = np.asarray(labels)
    if label_mode == "binary":
        return labels.astype("float32")[:, None]
    if label_mode == "categorical":
        if labels.size and (labels.min() < 0 or labels.max() >= num_classes):
            raise ValueError(f"label_mode='categorical' needs labels in [0, {num_classes}) "
                             f"for {num_classes} classes; received labels from "
                             f"{labels.min()} to {labels.max()}")
        return np.eye(num_classes, dtype="float32")[labels.astype("int64")]
    return labels.astype("int32")


class SampleDataset(PyDataset):
    """Batches of ``load(sample)`` stacked by ``collate`` (``numpy.stack`` by default),
    with ``targets[i]`` when targets are given. ``shuffle`` draws a new order of the
    samples every epoch from a generator seeded with ``seed`` (Keras reshuffles its
    tf.data pipeline each epoch); ``batch_size=None`` yields single samples."""

    def __init__(self, samples, targets, load, batch_size=32, shuffle=False, seed=None,
                 collate=None, class_names=None):
        super().__init__()
        self.samples = list(samples)
        self.targets = targets
        self.class_names = class_names
        self.batch_size = batch_size
        self._load = load
        self._collate = collate or np.stack
        self.reshuffle = bool(shuffle)
        self._rng = np.random.default_rng(seed)
        self._order = np.arange(len(self.samples))
        self.on_epoch_end()

    def __len__(self) -> int:
        if self.batch_size is None:
            return len(self.samples)
        return -(-len(self.samples) // self.batch_size)

    def __getitem__(self, index):
        if not -len(self) <= index < len(self):
            raise IndexError(f"{type(self).__name__}: batch index {index} out of range "
                             f"for {len(self)} batches")
        index %= len(self)
        if self.batch_size is None:
            picked = self._order[index]
            x = self._load(self.samples[picked])
        else:
            picked = self._order[index * self.batch_size:(index + 1) * self.batch_size]
            x = self._collate([self._load(self.samples[i]) for i in picked])
        return x if self.targets is None else (x, self.targets[picked])

    def __iter__(self):
        for index in range(len(self)):
            yield self[index]
        self.on_epoch_end()

    def on_epoch_end(self) -> None:
        if self.reshuffle:
            self._order = self._rng.permutation(len(self.samples))

    def unbatched(self):
        """Every sample once, in the current order: ``x`` or ``(x, y)`` each."""
        for picked in self._order:
            x = self._load(self.samples[picked])
            yield x if self.targets is None else (x, self.targets[picked])

    def batch(self, batch_size):
        """The same samples in batches of ``batch_size`` (tf.data's ``batch``, for scripts
        that batch what ``split_dataset`` returns)."""
        copy = SampleDataset(self.samples, self.targets, self._load, batch_size=batch_size,
                             shuffle=self.reshuffle, collate=self._collate,
                             class_names=self.class_names)
        copy._rng, copy._order = self._rng, self._order.copy()
        if hasattr(self, "file_paths"):
            copy.file_paths = self.file_paths
        return copy

    def __repr__(self) -> str:
        return (f"<{type(self).__name__}: {len(self.samples)} samples in {len(self)} "
                f"batches of {self.batch_size}, class_names={self.class_names}>")
