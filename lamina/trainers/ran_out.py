"""What the loops say when the data runs out (``epoch_batches`` says when it does): a
warning for fewer batches than asked for, an error for data that yields none at all."""
from __future__ import annotations

import math
import warnings
from ..traceback_filter import user_stacklevel


def no_batches_error(what: str, argument: str, data) -> ValueError:
    return ValueError(f"{what}: argument '{argument}' yielded no batches; received "
                      f"{_describe(data)}. Pass data with at least one batch")


def warn_epoch_ran_out(epoch: int, epochs: int, count: int, steps_per_epoch: int,
                       pass_length: int | None) -> None:
    """A pass that can start again ran out within an epoch: the epoch ends early and
    training goes on (Keras 3)."""
    held = (f"one pass over the data holds {pass_length} batches" if pass_length
            else "the data's pass ended")
    warnings.warn(f"fit: your input ran out of data after {count} of the {steps_per_epoch} "
                  f"batches of epoch {epoch + 1}/{epochs} asked for by steps_per_epoch "
                  f"({held}); the epoch ends early and the next one starts a new pass. "
                  f"Leave steps_per_epoch unset to train on one whole pass per epoch.",
                  UserWarning, stacklevel=user_stacklevel())        # the user's fit()


def warn_ran_out_in_fit(epoch: int, epochs: int, count: int, steps_per_epoch,
                        steps_per_execution: int = 1) -> None:
    """A one-shot generator ran out: training stops."""
    where = (f"after {count} batch(es) of epoch {epoch + 1}/{epochs}" if count
             else f"at the start of epoch {epoch + 1}/{epochs}")
    if steps_per_epoch:
        # Every execution draws steps_per_execution batches (Keras 3), so an epoch draws
        # steps_per_epoch rounded up to a multiple of it.
        per_epoch = math.ceil(steps_per_epoch / steps_per_execution) * steps_per_execution
        rounded = (f" (steps_per_epoch={steps_per_epoch} rounded up to a multiple of "
                   f"steps_per_execution={steps_per_execution})"
                   if per_epoch != steps_per_epoch else "")
        advice = (f"Make sure that your dataset or generator can generate at least "
                  f"`steps_per_epoch * epochs` batches ({per_epoch} * {epochs} = "
                  f"{per_epoch * epochs} here{rounded})")
    else:
        advice = ("A generator is consumed by the first epoch: pass `steps_per_epoch` and "
                  "a generator that yields at least `steps_per_epoch * epochs` batches, or "
                  "a re-iterable dataset (a PyDataset or a list of batches)")
    warnings.warn(f"fit: your input ran out of data {where}; interrupting training. "
                  f"{advice}.", UserWarning, stacklevel=user_stacklevel())        # the user's fit()


def warn_ran_out(what: str, count: int, expected: int, result: str) -> None:
    warnings.warn(f"{what}: your input ran out of data after {count} of the {expected} "
                  f"batches asked for (argument 'steps'); {result} cover those {count} "
                  f"batch(es) only.", UserWarning, stacklevel=user_stacklevel())


def _describe(data) -> str:
    name = type(data).__name__
    try:
        return f"a {name} of length {len(data)}"
    except TypeError:
        return f"a {name} that yields nothing" if data is not None else "None"
