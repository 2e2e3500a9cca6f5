"""The same number of steps on every process, agreed once when fit / evaluate / predict
(or a validation run) starts.

Every step of a DataParallel run is collective (the gradient exchange, the metric sums):
a process that has a batch more than its peers waits for ever for peers that have ended
the epoch, and until then its collectives meet those of another step. So the processes
exchange their counts first (one allgather, bounded by ``LAMINA_COLLECTIVE_TIMEOUT``) and:

- ``auto_shard_dataset=True`` (the default: every process holds the same data and takes
  its share of each global batch): differing row or batch counts mean differing data, and
  no split can make the result one process's. Every process raises
  ``DistributedDataError`` naming each process's rows, before any step.
- ``auto_shard_dataset=False`` (each process feeds its own part):
  - training takes the smallest count: every step then is a whole global batch of every
    process's rows; a process with more batches leaves its surplus out of each epoch
    (a warning names the counts). Padding the others with batches of no rows would keep
    those rows, but a training step cannot run on no rows without changing what its
    synchronized statistics and metrics see.
  - evaluation and prediction take the largest count: a process that has run out takes
    part in the remaining steps with no rows (its metric states unchanged, no
    predictions), so no row is left out of the results.
  A process with no batch at all, or a count that one process knows and another does not
  (a generator), is an error naming the counts.

Sources of unknown length everywhere (generators) cannot be counted ahead; their steps
are bounded by ``LAMINA_COLLECTIVE_TIMEOUT``.
"""
from __future__ import annotations

import warnings

from ..errors import DistributedDataError
from .steps import no_rows
from .strategies import data_parallel
from .world import world

_WHAT = {"train": "fit", "test": "evaluate", "predict": "predict"}


def agree_on_steps(model, iterator, kind: str):
    """``iterator`` (a trainers EpochIterator), made to draw the same number of batches
    per epoch on every process; ``kind`` is "train", "test" or "predict"."""
    dist = data_parallel()
    comm = world()
    if dist is None or comm.size == 1:
        return iterator
    rows = getattr(iterator.adapter, "size", None)
    mine = (None if rows is None else int(rows), iterator.pass_length, iterator.steps)
    what = _WHAT[kind]
    counts = comm.allgather_object(
        mine, what=f"the count of every process's batches at the start of {what}")
    all_rows = [c[0] for c in counts]
    passes = [c[1] for c in counts]
    if not dist.auto_shard_dataset and None not in all_rows:
        # predictions are gathered: the run's outputs have every process's rows
        iterator.adapter = _Padded(iterator.adapter, iterator.pass_length, sum(all_rows))
    if len(set(all_rows)) == 1 and len(set(passes)) == 1:
        return iterator                           # the same everywhere
    name = getattr(model, "name", type(model).__name__)
    if dist.auto_shard_dataset:
        raise DistributedDataError(
            f"{name}: {what} under DataParallel(auto_shard_dataset=True) needs the same data "
            f"on every process (each takes its share of every global batch), but "
            f"{_counts(all_rows, passes)}; pass the "
            f"same arrays everywhere, or DataParallel(auto_shard_dataset=False) when each "
            f"process feeds its own part")
    if None in passes or 0 in passes:
        raise DistributedDataError(
            f"{name}: {what} under DataParallel(auto_shard_dataset=False) needs a known, "
            f"non-zero number of batches on every process to take the same steps "
            f"everywhere, but {_listing(passes, 'batch(es)')}")
    if kind == "train":
        agreed = min(passes)
        surplus = [p - agreed for p in passes]
        warnings.warn(
            f"{name}: fit under DataParallel(auto_shard_dataset=False): "
            f"{_listing(passes, 'batch(es)')}; every process trains on "
            f"{agreed} batch(es) per epoch so that all take the same steps, leaving out "
            + ", ".join(f"{n} batch(es) on process {r}" for r, n in enumerate(surplus) if n)
            + " of each epoch", UserWarning, stacklevel=4)
    else:
        agreed = max(passes)
        if not isinstance(iterator.adapter, _Padded):
            iterator.adapter = _Padded(iterator.adapter, agreed, None)
    iterator.adapter.num_batches = iterator.pass_length = agreed
    return iterator


def _counts(rows, passes) -> str:
    if None not in rows and len(set(rows)) > 1:
        return _listing(rows, "row(s)")
    return _listing(passes, "batch(es)")


def _listing(counts, unit: str) -> str:
    return ", ".join(f"process {r} holds {'an unknown number of' if c is None else c} "
                     f"{unit}" for r, c in enumerate(counts))


class _Padded:
    """``adapter``'s batches, then batches of no rows (cut from its last batch) up to
    ``length`` batches per pass; ``size``: the rows of every process together (None:
    ``adapter``'s); everything else is ``adapter``'s."""

    def __init__(self, adapter, length: int, size):
        self._adapter = adapter
        self.num_batches = length
        if size is not None:
            self.size = size

    def __getattr__(self, name):
        return getattr(self._adapter, name)

    def epoch(self):
        source = iter(self._adapter.epoch())
        count, last = 0, None
        try:
            for batch in source:
                count, last = count + 1, batch
                yield batch
            while last is not None and self.num_batches is not None and \
                    count < self.num_batches:
                count += 1
                yield no_rows(last)
        finally:
            close = getattr(source, "close", None)
            if close is not None:
                close()


__all__ = ["agree_on_steps"]
