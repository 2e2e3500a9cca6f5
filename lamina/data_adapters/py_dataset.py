"""``PyDataset``: Keras 3's base class for data that is produced batch by batch."""
from __future__ import annotations


class PyDataset:
    """Subclass it with ``__len__`` (batches per epoch) and ``__getitem__(index)`` returning
    a batch ``x``, ``(x, y)`` or ``(x, y, sample_weight)``; ``on_epoch_begin`` and
    ``on_epoch_end`` run around each epoch (reshuffle there). A dataset without ``__len__``
    overrides the ``num_batches`` property instead; ``None`` means infinite (``fit`` then
    needs ``steps_per_epoch``, and the index keeps counting across epochs).

    ``workers`` > 1 fetches batches in that many threads; ``use_multiprocessing=True``
    fetches them in ``workers`` processes (the dataset is sent to each process once per
    epoch, so it must be picklable under the ``spawn`` start method). At most
    ``max_queue_size`` batches are fetched ahead of training, and batches arrive in index
    order either way. ``workers=0`` (or 1 without multiprocessing) fetches in the training
    thread.

    Args:
        workers: int, the threads (or processes) fetching batches in parallel
            (default 1).
        use_multiprocessing: bool; fetch in ``workers`` processes rather than threads
            (default False).
        max_queue_size: int, the most batches fetched ahead (default 10).
    """

    def __init__(self, workers: int = 1, use_multiprocessing: bool = False,
                 max_queue_size: int = 10):
        owner = type(self).__name__
        self._workers = check_workers(owner, workers)
        self._use_multiprocessing = bool(use_multiprocessing)
        self._max_queue_size = check_max_queue_size(owner, max_queue_size)

    # A subclass that forgot super().__init__() still gets Keras's defaults.
    @property
    def workers(self) -> int:
        return self.__dict__.get("_workers", 1)

    @workers.setter
    def workers(self, value) -> None:
        self._workers = check_workers(type(self).__name__, value)

    @property
    def use_multiprocessing(self) -> bool:
        return self.__dict__.get("_use_multiprocessing", False)

    @use_multiprocessing.setter
    def use_multiprocessing(self, value) -> None:
        self._use_multiprocessing = bool(value)

    @property
    def max_queue_size(self) -> int:
        return self.__dict__.get("_max_queue_size", 10)

    @max_queue_size.setter
    def max_queue_size(self, value) -> None:
        self._max_queue_size = check_max_queue_size(type(self).__name__, value)

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__(index) "
                                  f"returning one batch")

    @property
    def num_batches(self):
        """Batches per epoch: ``len(self)``, or ``None`` for an infinite dataset."""
        if type(self).__len__ is PyDataset.__len__:
            raise NotImplementedError(f"{type(self).__name__} must define __len__ (the "
                                      f"number of batches per epoch) or the num_batches "
                                      f"property (None for an infinite dataset)")
        return len(self)

    def __len__(self) -> int:
        count = self.num_batches            # a subclass that overrides num_batches only
        if count is None:
            raise TypeError(f"{type(self).__name__} is infinite (num_batches is None) and "
                            f"has no length")
        return count

    def __iter__(self):
        index = 0
        count = self.num_batches
        while count is None or index < count:
            yield self[index]
            index += 1

    def on_epoch_begin(self) -> None:
        """Called before each epoch's first batch is fetched."""

    def on_epoch_end(self) -> None:
        """Called after each epoch; override to reshuffle."""


def check_workers(owner: str, workers) -> int:
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 0:
        raise ValueError(f"{owner}: argument 'workers' must be an int >= 0; received "
                         f"{workers!r}")
    return workers


def check_max_queue_size(owner: str, max_queue_size) -> int:
    if isinstance(max_queue_size, bool) or not isinstance(max_queue_size, int) or \
            max_queue_size < 1:
        raise ValueError(f"{owner}: argument 'max_queue_size' must be an int >= 1; "
                         f"received {max_queue_size!r}")
    return max_queue_size
