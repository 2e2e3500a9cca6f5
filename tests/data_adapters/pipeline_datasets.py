"""PyDatasets for the pipeline tests, at module level so that worker processes started with
``spawn`` can unpickle them."""
import os
import threading
import time

import numpy as np

import lamina

ROWS, BATCH = 48, 6


class Numbered(lamina.utils.PyDataset):
    """Batch ``i`` of a fixed regression set; column 0 of ``x`` holds the dataset index, so a
    test can tell which index each batch came from. ``on_epoch_end`` reshuffles the rows
    with a seeded generator (a Keras-style shuffling dataset)."""

    def __init__(self, reshuffle=False, fail_at=None, exit_at=None, **kwargs):
        super().__init__(**kwargs)
        rng = np.random.default_rng(3)
        self.x = rng.normal(size=(ROWS, 3)).astype("float32")
        self.y = (self.x @ np.array([[1.0], [-2.0], [0.5]], "float32") + 0.25)
        self.order = np.arange(ROWS)
        self.reshuffle = reshuffle
        self.fail_at = fail_at
        self.exit_at = exit_at
        self.epochs_ended = 0
        self._rng = np.random.default_rng(11)

    def __len__(self):
        return ROWS // BATCH

    def __getitem__(self, index):
        if index == self.fail_at:
            raise ValueError(f"batch {index} is broken")      # the worker's own line
        if index == self.exit_at:
            os._exit(3)
        rows = self.order[index * BATCH:(index + 1) * BATCH]
        x = self.x[rows].copy()
        x[:, 0] = index
        return x, self.y[rows]

    def on_epoch_end(self):
        self.epochs_ended += 1
        if self.reshuffle:
            self.order = self._rng.permutation(ROWS)


class Endless(lamina.utils.PyDataset):
    """An infinite dataset: ``num_batches`` is None; batch ``i`` is all ``i``."""

    @property
    def num_batches(self):
        return None

    def __getitem__(self, index):
        return np.full((2, 3), index, "float32"), np.full((2, 1), index, "float32")


class Watched(lamina.utils.PyDataset):
    """Records how many ``__getitem__`` calls run at once and which indices were asked
    for (threads only: the counters live in this process)."""

    def __init__(self, count=12, delay=0.02, **kwargs):
        super().__init__(**kwargs)
        self.count, self.delay = count, delay
        self.lock = threading.Lock()
        self.running = self.most_running = 0
        self.requested = []

    def __len__(self):
        return self.count

    def __getitem__(self, index):
        with self.lock:
            self.requested.append(index)
            self.running += 1
            self.most_running = max(self.most_running, self.running)
        time.sleep(self.delay)
        with self.lock:
            self.running -= 1
        return np.full((2, 3), index, "float32"), np.full((2, 1), index, "float32")
