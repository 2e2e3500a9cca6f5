"""One epoch of batches, counted, and what the loops do when the input runs out.

Keras 3's rule: when the data yields fewer batches than asked for (a generator shorter than
``steps_per_epoch * epochs``, a one-shot generator asked for a second epoch), warn that the
input ran out and stop; never report an epoch that saw no data. Data that yields no batch
at all is an error.
"""
from __future__ import annotations

import warnings

_END = object()


class EpochBatches:
    """The batches of one epoch of ``adapter``. The first batch is fetched on creation, so
    a loop can tell an empty epoch before it calls any callback."""

    def __init__(self, adapter):
        self.expected = getattr(adapter, "num_batches", None)
        self._iterator = iter(adapter.epoch())
        self._first = next(self._iterator, _END)
        self.count = 0

    @property
    def empty(self) -> bool:
        return self._first is _END and self.count == 0

    def __iter__(self):
        if self._first is _END:
            return
        first, self._first = self._first, _END
        self.count += 1
        yield first
        for batch in self._iterator:
            self.count += 1
            yield batch

    def close(self) -> None:
        """End the epoch early: stops the data's worker threads or processes now (not when
        the garbage collector gets to the generator)."""
        self._first = _END
        close = getattr(self._iterator, "close", None)
        if close is not None:
            close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def ran_short(self) -> bool:
        """Whether the data stopped before the number of batches it was asked for (call
        after iterating to the end)."""
        return self.count == 0 or (self.expected is not None and self.count < self.expected)


def no_batches_error(what: str, argument: str, data) -> ValueError:
    return ValueError(f"{what}: argument '{argument}' yielded no batches; received "
                      f"{_describe(data)}. Pass data with at least one batch")


def warn_ran_out_in_fit(epoch: int, epochs: int, count: int, steps_per_epoch) -> None:
    where = (f"after {count} batch(es) of epoch {epoch + 1}/{epochs}" if count
             else f"at the start of epoch {epoch + 1}/{epochs}")
    if steps_per_epoch:
        advice = (f"Make sure that your dataset or generator can generate at least "
                  f"`steps_per_epoch * epochs` batches ({steps_per_epoch} * {epochs} = "
                  f"{steps_per_epoch * epochs} here)")
    else:
        advice = ("A generator is consumed by the first epoch: pass `steps_per_epoch` and "
                  "a generator that yields at least `steps_per_epoch * epochs` batches, or "
                  "a re-iterable dataset (a PyDataset or a list of batches)")
    warnings.warn(f"fit: your input ran out of data {where}; interrupting training. "
                  f"{advice}.", UserWarning, stacklevel=5)        # the user's fit()


def warn_ran_out(what: str, count: int, expected: int, result: str,
                 stacklevel: int) -> None:
    warnings.warn(f"{what}: your input ran out of data after {count} of the {expected} "
                  f"batches asked for (argument 'steps'); {result} cover those {count} "
                  f"batch(es) only.", UserWarning, stacklevel=stacklevel)


def _describe(data) -> str:
    name = type(data).__name__
    try:
        return f"a {name} of length {len(data)}"
    except TypeError:
        return f"a {name} that yields nothing" if data is not None else "None"
