"""``PyDataset``: Keras 3's base class for data that is produced batch by batch."""
from __future__ import annotations


class PyDataset:
    """Subclass it with ``__len__`` (batches per epoch) and ``__getitem__(index)`` returning
    a batch ``x``, ``(x, y)`` or ``(x, y, sample_weight)``; ``on_epoch_end`` runs after each
    epoch. ``workers``, ``use_multiprocessing`` and ``max_queue_size`` are accepted for
    Keras compatibility; batches are produced in the training thread.
    """

    def __init__(self, workers: int = 1, use_multiprocessing: bool = False,
                 max_queue_size: int = 10):
        self.workers = workers
        self.use_multiprocessing = use_multiprocessing
        self.max_queue_size = max_queue_size

    def __len__(self) -> int:
        raise NotImplementedError(f"{type(self).__name__} must define __len__ (the number "
                                  f"of batches per epoch)")

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__(index) "
                                  f"returning one batch")

    def on_epoch_end(self) -> None:
        """Called after each epoch; override to reshuffle."""

    @property
    def num_batches(self) -> int:
        return len(self)
