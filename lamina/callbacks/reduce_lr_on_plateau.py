"""``ReduceLROnPlateau``: lower the learning rate when a metric stops improving (Keras 3)."""
from __future__ import annotations

import warnings

from .. import ops
from ..registry import register_builtin
from .monitor_callback import MonitorCallback, check_non_negative_int, check_number


def rate_optimizers(owner: str, model) -> list:
    """``[(log key, optimizer)]`` whose learning rates the callback reads and sets: the
    model's optimizer (``"learning_rate"``), or each inner optimizer of a MultiOptimizer
    (``"learning_rate_<name>"``), as Keras 3 does."""
    optimizer = getattr(model, "optimizer", None)
    inner = getattr(optimizer, "optimizers", None)
    if inner is not None:
        pairs = [(f"learning_rate_{o.name}", o) for o in inner]
    else:
        pairs = [("learning_rate", optimizer)]
    for _, each in pairs:
        if each is None or not hasattr(each, "learning_rate"):
            raise ValueError(f'{owner}: the model\'s optimizer must have a "learning_rate" '
                             f"attribute; received optimizer {each!r}. Compile the model "
                             f"before fit().")
    return pairs


def read_learning_rates(owner: str, model) -> dict:
    """The current learning rate(s) as Python floats, by log key."""
    return {key: float(o.learning_rate) for key, o in rate_optimizers(owner, model)}


@register_builtin
class ReduceLROnPlateau(MonitorCallback):
    """Reduce the learning rate when a monitored quantity has stopped improving.

    After ``patience`` epochs in which ``monitor`` did not improve by more than
    ``min_delta``, the rate is multiplied by ``factor`` (down to ``min_lr``); then
    ``cooldown`` epochs pass before counting again. Adds ``logs["learning_rate"]`` (the
    rate the epoch trained with) to every epoch's logs.

    Args:
        monitor: Name of the logged quantity to watch. Defaults to ``"val_loss"``.
        factor: The factor the rate is multiplied by, below 1. Defaults to ``0.1``.
        patience: Number of epochs without improvement before the rate is reduced.
            Defaults to ``10``.
        verbose: ``0`` is silent; ``1`` prints a message when the rate is reduced.
        mode: ``"min"``, ``"max"`` or ``"auto"`` (default): whether a lower or a higher
            value is better; ``"auto"`` infers it from the name of ``monitor``.
        min_delta: The smallest change that counts as an improvement. Defaults to
            ``1e-4``.
        cooldown: Number of epochs to wait after a reduction before counting again.
            Defaults to ``0``.
        min_lr: The lowest rate it reduces to. Defaults to ``0.0``.
        **kwargs: Only ``epsilon``, Keras 2's name for ``min_delta`` (with a warning);
            anything else raises ``TypeError``.

    Example:

    >>> reduce_lr = ReduceLROnPlateau(monitor="val_loss", factor=0.2, patience=5,
    ...                               min_lr=0.001)
    >>> model.fit(x, y, validation_split=0.2, callbacks=[reduce_lr])
    """

    _keras_module = "keras.callbacks"

    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0, mode="auto",
                 min_delta=1e-4, cooldown=0, min_lr=0.0, **kwargs):
        if "epsilon" in kwargs:                    # Keras 2's name for min_delta
            warnings.warn("ReduceLROnPlateau: argument 'epsilon' is deprecated, use "
                          "'min_delta' instead.", stacklevel=2)
            min_delta = kwargs.pop("epsilon")
        if kwargs:
            raise TypeError(f"ReduceLROnPlateau: unrecognized keyword argument(s) "
                            f"{sorted(kwargs)}")
        super().__init__(monitor, mode, min_delta=min_delta)
        check_number("ReduceLROnPlateau", "factor", factor)
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau does not support a factor >= 1.0. "
                             f"Received factor={factor}")
        self.factor = factor
        self.min_lr = check_number("ReduceLROnPlateau", "min_lr", min_lr)
        self.patience = check_non_negative_int("ReduceLROnPlateau", "patience", patience)
        self.cooldown = check_non_negative_int("ReduceLROnPlateau", "cooldown", cooldown)
        self.verbose = verbose
        self.cooldown_counter = 0
        self.wait = 0

    def _reset(self) -> None:
        """Clear the per-run state (each fit starts afresh, as in Keras 3)."""
        self.best = None
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, logs=None):
        self._reset()

    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def on_epoch_end(self, epoch, logs=None):
        if self.monitor_op is None:
            self._set_monitor_op()
        logs = logs if logs is not None else {}
        logs.update(read_learning_rates("ReduceLROnPlateau", self.model))
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(f"Learning rate reduction is conditioned on metric "
                          f"`{self.monitor}` which is not available. Available metrics "
                          f"are: {','.join(logs)}.", stacklevel=2)
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self._is_improvement(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                self._reduce(epoch)

    def _reduce(self, epoch: int) -> None:
        pairs = rate_optimizers("ReduceLROnPlateau", self.model)
        reduced = False
        for key, optimizer in pairs:
            reduced |= self._reduce_one(optimizer, epoch,
                                        "" if len(pairs) == 1 and key == "learning_rate"
                                        else f" {optimizer.name}")
        if reduced:
            self.cooldown_counter = self.cooldown
            self.wait = 0

    def _reduce_one(self, optimizer, epoch: int, label: str) -> bool:
        old_lr = float(optimizer.learning_rate)
        # Compare with min_lr as the optimizer stores it (float32 rounding), so a rate
        # already at min_lr is never "reduced" to it again.
        stored_min_lr = float(ops.convert_to_tensor(self.min_lr,
                                                    dtype=optimizer.learning_rate.dtype))
        if old_lr <= stored_min_lr:
            return False
        new_lr = max(old_lr * self.factor, self.min_lr)
        optimizer.learning_rate = new_lr
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing{label} learning rate "
                  f"to {new_lr}.", flush=True)
        return True

    def get_state(self) -> dict:
        """The plateau count, best value and cooldown (BackupAndRestore); the learning
        rate itself is the optimizer's state, saved with its weights."""
        return {"wait": self.wait, "best": self.best,
                "cooldown_counter": self.cooldown_counter}

    def set_state(self, state: dict) -> None:
        self.wait = int(state["wait"])
        self.best = state["best"]
        self.cooldown_counter = int(state["cooldown_counter"])

    def get_config(self) -> dict:
        return {"monitor": self.monitor, "factor": self.factor, "patience": self.patience,
                "verbose": self.verbose, "mode": self.mode, "min_delta": self.min_delta,
                "cooldown": self.cooldown, "min_lr": self.min_lr}

    @classmethod
    def from_config(cls, config: dict) -> "ReduceLROnPlateau":
        return cls(**config)
