"""``LearningRateScheduler``: set the learning rate from a function of the epoch (Keras 3)."""
from __future__ import annotations

import inspect

from ..registry import deserialize_keras_object, register_builtin, serialize_keras_object
from .callback import Callback
from .reduce_lr_on_plateau import rate_optimizers, read_learning_rates


def _takes_two_arguments(schedule) -> bool | None:
    """Whether ``schedule(epoch, lr)`` is the form to call (else ``schedule(epoch)``);
    None when the signature cannot be read."""
    try:
        signature = inspect.signature(schedule)
    except (TypeError, ValueError):
        return None
    try:
        signature.bind(0, 0.0)
        return True
    except TypeError:
        return False


def as_float(value):
    """``value`` as a Python float if it is a float scalar (Python, numpy or 0-d tensor)."""
    if isinstance(value, float):
        return float(value)
    dtype = getattr(value, "dtype", None)
    if dtype is not None and getattr(value, "shape", None) == () and \
            str(dtype).startswith(("float", "bfloat")):
        return float(value)
    return None


@register_builtin
class LearningRateScheduler(Callback):
    """Set the optimizer's learning rate at the start of each epoch from a schedule.

    The rate is added to each epoch's logs as ``learning_rate``.

    Args:
        schedule: A function ``schedule(epoch, lr)`` (0-based epoch, current rate; or
            ``schedule(epoch)``) that returns the rate, a float, to train the epoch with.
        verbose: ``0`` is silent; ``1`` prints the rate set at each epoch.

    Example:

    >>> def scheduler(epoch, lr):
    ...     return lr if epoch < 10 else lr * math.exp(-0.1)
    >>> model.fit(x, y, epochs=15, callbacks=[LearningRateScheduler(scheduler)])
    """

    _keras_module = "keras.callbacks"

    def __init__(self, schedule, verbose=0):
        super().__init__()
        if not callable(schedule):
            raise TypeError(f"LearningRateScheduler: argument 'schedule' must be a function "
                            f"(epoch, lr) -> float; received {schedule!r}")
        self.schedule = schedule
        self.verbose = verbose

    def on_epoch_begin(self, epoch, logs=None):
        # A MultiOptimizer: the schedule runs on each inner optimizer's own rate.
        for key, optimizer in rate_optimizers("LearningRateScheduler", self.model):
            learning_rate = self._update(optimizer, epoch)
            if self.verbose > 0:
                which = "" if key == "learning_rate" else f"{optimizer.name} "
                print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting {which}learning "
                      f"rate to {learning_rate}.", flush=True)

    def _update(self, optimizer, epoch) -> float:
        current = float(optimizer.learning_rate)
        two = _takes_two_arguments(self.schedule)
        if two is None:
            try:                        # Keras's rule: the new form, else the old one
                value = self.schedule(epoch, current)
            except TypeError:
                value = self.schedule(epoch)
        else:
            value = self.schedule(epoch, current) if two else self.schedule(epoch)
        learning_rate = as_float(value)
        if learning_rate is None:
            raise ValueError(f"LearningRateScheduler: the output of the `schedule` function "
                             f"should be a float; received {value!r} "
                             f"({type(value).__name__}) for epoch {epoch}")
        optimizer.learning_rate = learning_rate
        return learning_rate

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs.update(read_learning_rates("LearningRateScheduler", self.model))

    def get_config(self) -> dict:
        """The schedule is saved by its registered name (register it with
        ``lamina.saving.register_keras_serializable`` to round-trip through a file)."""
        return {"schedule": serialize_keras_object(self.schedule), "verbose": self.verbose}

    @classmethod
    def from_config(cls, config: dict, custom_objects=None) -> "LearningRateScheduler":
        config = dict(config)
        config["schedule"] = deserialize_keras_object(config["schedule"], custom_objects,
                                                      kind="schedule")
        return cls(**config)
