"""``PyDataset``: Keras 3's base class for data that is produced batch by batch."""
from __future__ import annotations

from .ignored_arguments import warn_ignored


class PyDataset:
    """Subclass it with ``__len__`` (batches per epoch) and ``__getitem__(index)`` returning
    a batch ``x``, ``(x, y)`` or ``(x, y, sample_weight)``; ``on_epoch_end`` runs after each
    epoch. ``workers``, ``use_multiprocessing`` and ``max_queue_size`` are accepted for
    Keras compatibility; batches are produced in the training thread, so ``workers`` > 1
    and ``use_multiprocessing=True`` warn once that they have no effect.
    """

    def __init__(self, workers: int = 1, use_multiprocessing: bool = False,
                 max_queue_size: int = 10):
        self.workers = workers
        self.use_multiprocessing = use_multiprocessing
        self.max_queue_size = max_queue_size
        owner = type(self).__name__
        reason = "batches are produced one at a time in the training thread"
        if workers not in (None, 0, 1):
            warn_ignored(owner, "workers", workers, reason)
        if use_multiprocessing:
            warn_ignored(owner, "use_multiprocessing", use_multiprocessing, reason)

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
