"""The batches of each epoch, drawn and counted as Keras 3's ``EpochIterator`` draws them.

Keras 3's rules (checked against its trainer tests, JAX backend):

- An epoch asks for ``steps_per_epoch`` batches, or without it for one pass over the data
  (all of it, or every batch of a source of unknown length). They come in executions of
  ``steps_per_execution`` batches: ``ceil(steps / steps_per_execution)`` executions, each
  drawing ``steps_per_execution`` batches, so with ``steps_per_epoch=5`` and
  ``steps_per_execution=2`` an epoch trains on 6 batches.
- With ``steps_per_epoch`` one pass over the data (one iterator) is kept across epochs: with
  10 batches and ``steps_per_epoch=5``, epoch 2 trains on batches 5-9 and epoch 3 starts a
  new pass (reshuffled). Without it every epoch is a new pass.
- When a pass runs out before an epoch has drawn its ``steps_per_epoch`` batches, the epoch
  ends early with a warning and the next one starts a new pass: with 10 batches and
  ``steps_per_epoch=9`` the epochs train on 9, 1, 9, 1, ... batches.
- A PyDataset's ``on_epoch_begin`` / ``on_epoch_end`` run around every epoch, however the
  epochs cut its passes.

Lamina's own rules, where Keras's come from how its iterator happens to work:

- A one-shot generator cannot start a new pass: when it runs out before an epoch has its
  batches, training stops with a warning (Keras replays the batches it peeked at).
- A pass of unknown length that ended exactly where the last epoch stopped starts again at
  once, so no epoch sees no data (Keras runs an empty epoch there).
- The natural end of a pass, when no ``steps_per_epoch`` asked for more, says nothing.
"""
from __future__ import annotations

_END = object()


class EpochIterator:
    """The epochs of one fit (or the one epoch of an evaluate / predict) over ``adapter``:
    ``steps`` is ``steps_per_epoch`` (``steps`` for evaluate / predict), or None for a pass
    per epoch. Use as a context manager: the last pass is closed (its workers joined)
    however the run ends."""

    def __init__(self, adapter, steps: int | None = None):
        self.adapter = adapter
        self.steps = steps
        self.pass_length = getattr(adapter, "num_batches", None)   # None: not known
        self.one_shot = bool(getattr(adapter, "one_shot", False))
        self._pass = None
        self._fresh = False         # the current pass was started by the current epoch
        self._drawn = 0             # batches drawn from the current pass

    @property
    def num_batches(self) -> int | None:
        """The batches an epoch asks for (the progress bar's and callbacks' ``steps``)."""
        return self.steps or self.pass_length

    def epoch(self, steps_per_execution: int = 1, skip: int = 0) -> "Epoch":
        """The next epoch, in executions of ``steps_per_execution`` batches; its first
        ``skip`` batches are drawn and dropped (trained before the backup a fit resumed
        from)."""
        return Epoch(self, steps_per_execution, skip)

    def close(self) -> None:
        if self._pass is not None:
            close = getattr(self._pass, "close", None)
            self._pass = None
            if close is not None:
                close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    # ----------------------------------------------------------------- passes
    def _start_epoch(self) -> None:
        if self.steps is None or self._pass is None:
            self._new_pass()
        else:
            self._fresh = False

    def _new_pass(self) -> None:
        self.close()
        self._pass = iter(self.adapter.epoch())
        self._fresh, self._drawn = True, 0

    def _draw(self, count: int) -> list:
        """Up to ``count`` batches of the current pass (fewer when it runs out)."""
        group = []
        while len(group) < count and self._pass is not None:
            if self.pass_length is not None and self._drawn >= self.pass_length:
                break
            batch = next(self._pass, _END)
            if batch is _END:
                self.close()                        # a new pass next time
                break
            group.append(batch)
            self._drawn += 1
        return group

    def _draw_first(self, count: int) -> list:
        group = self._draw(count)
        if not group and not self._fresh and not self.one_shot:
            self._new_pass()            # the kept pass had ended exactly at the last epoch
            group = self._draw(count)
        return group

    def _end_epoch(self) -> None:
        """After an epoch: a pass that is over is closed (the next epoch starts a new one);
        one that goes on only stops its workers (a PyDataset's), before the dataset's
        ``on_epoch_end`` may change it."""
        if self.steps is None or (self.pass_length is not None and
                                  self._drawn >= self.pass_length):
            self.close()
        elif self._pass is not None and hasattr(self._pass, "pause"):
            self._pass.pause()


class Epoch:
    """One epoch's executions: iterate for ``(begin, end, group)``, ``group`` the batches of
    one execution, ``begin`` / ``end`` the batch indices Keras gives its batch callbacks
    (``end`` is ``begin + steps_per_execution - 1`` also for a short last group). The first
    group is drawn on creation, so a loop can tell an empty epoch before it calls any
    callback. Use as a context manager: the data's epoch hooks run around it."""

    def __init__(self, iterator: EpochIterator, steps_per_execution: int, skip: int):
        self._iterator = iterator
        self.size = steps_per_execution
        self.skip = skip
        self.count = 0              # batches drawn for training (the skipped ones apart)
        begin = getattr(iterator.adapter, "on_epoch_begin", None)
        if begin is not None:
            begin()
        iterator._start_epoch()
        if skip:
            iterator._draw(skip)
        self._first = iterator._draw_first(self.size)

    @property
    def empty(self) -> bool:
        return not self._first and self.count == 0

    @property
    def expected(self) -> int | None:
        return self._iterator.num_batches

    def __iter__(self):
        limit = self._iterator.num_batches
        step, group, self._first = self.skip, self._first, []
        while group:
            self.count += len(group)
            yield step, step + self.size - 1, group
            step += self.size
            if len(group) < self.size or (limit is not None and step >= limit):
                break
            group = self._iterator._draw(self.size)

    def ran_short(self) -> bool:
        """Whether the data ran out before the epoch had the batches it asked for (call
        after iterating to the end)."""
        expected = self.expected
        return self.count == 0 or (expected is not None and
                                   self.skip + self.count < expected)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, *exc_info) -> None:
        if exc_type is not None:
            self._iterator.close()
            return
        self._iterator._end_epoch()
        end = getattr(self._iterator.adapter, "on_epoch_end", None)
        if end is not None:
            end()
