"""``EarlyStopping``: stop training when a monitored quantity stops improving (Keras 3)."""
from __future__ import annotations

import warnings

from ..registry import register_builtin
from .monitor_callback import MonitorCallback, check_non_negative_int, check_number


@register_builtin
class EarlyStopping(MonitorCallback):
    """Stop training when a monitored quantity has stopped improving.

    Each epoch (from ``start_from_epoch`` on) counts one more epoch of waiting; an epoch
    whose value beats the best by more than ``min_delta`` becomes the best, and resets the
    count if it also beats ``baseline``. Training stops when the count reaches
    ``patience`` (never in epoch 0).

    Args:
        monitor: Name of the logged quantity to watch, such as ``"val_loss"`` (default)
            or ``"val_accuracy"``.
        min_delta: The smallest change of ``monitor`` that counts as an improvement.
            Defaults to ``0``.
        patience: Number of epochs without improvement after which training stops.
            Defaults to ``0``.
        verbose: ``0`` is silent; ``1`` prints a message when training is stopped.
        mode: ``"min"``, ``"max"`` or ``"auto"`` (default): whether a lower or a higher
            value is better; ``"auto"`` infers it from the name of ``monitor``.
        baseline: A value that ``monitor`` must beat for the count to reset; ``None``
            (default) for none.
        restore_best_weights: If ``True``, the weights of the best epoch are put back when
            training ends, stopped early or not (Keras 3's rule). Defaults to ``False``.
        start_from_epoch: Number of epochs to wait before counting, to let a model warm up.
            Defaults to ``0``.

    Example:

    >>> stop = EarlyStopping(monitor="val_loss", patience=3, restore_best_weights=True)
    >>> model.fit(x, y, validation_split=0.2, epochs=100, callbacks=[stop])
    """

    _keras_module = "keras.callbacks"

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto",
                 baseline=None, restore_best_weights=False, start_from_epoch=0):
        super().__init__(monitor, mode, baseline=None, min_delta=min_delta)
        self.patience = check_non_negative_int("EarlyStopping", "patience", patience)
        self.start_from_epoch = check_non_negative_int("EarlyStopping", "start_from_epoch",
                                                       start_from_epoch)
        self.baseline = check_number("EarlyStopping", "baseline", baseline, allow_none=True)
        self.verbose = verbose
        self.restore_best_weights = bool(restore_best_weights)
        self.wait = 0
        self.stopped_epoch = 0
        self.best_epoch = 0
        self.best_weights = None

    def on_train_begin(self, logs=None):
        # The same instance may serve several fits: start each one afresh.
        self.wait = 0
        self.stopped_epoch = 0
        self.best = None
        self.best_epoch = 0
        self.best_weights = None

    def on_epoch_end(self, epoch, logs=None):
        if self.monitor_op is None:
            self._set_monitor_op()
        current = self.get_monitor_value(logs)
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            # Until something improves, the first monitored epoch is the best one.
            self.best_weights = self._weights_snapshot()
            self.best_epoch = epoch
        self.wait += 1
        if self._is_improvement(current, self.best):
            self.best = current
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = self._weights_snapshot()
            # The wait restarts only when the value beats the baseline too.
            if self.baseline is None or self._is_improvement(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping", flush=True)
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print(f"Restoring model weights from the end of the best epoch: "
                      f"{self.best_epoch + 1}.", flush=True)
            self.model.set_weights(self.best_weights)

    def _weights_snapshot(self) -> list:
        # get_weights() returns host copies, which later in-place updates leave alone.
        return self.model.get_weights()

    def get_state(self) -> dict:
        """What a resumed fit needs to stop where this one would have (BackupAndRestore):
        the epochs waited, the best value and epoch, and with ``restore_best_weights``
        the best weights (host arrays)."""
        return {"wait": self.wait, "best": self.best, "best_epoch": self.best_epoch,
                "stopped_epoch": self.stopped_epoch,
                "best_weights": None if self.best_weights is None else list(self.best_weights)}

    def set_state(self, state: dict) -> None:
        """Restore :meth:`get_state`'s dict (after on_train_begin has reset this)."""
        self.wait = int(state["wait"])
        self.best = state["best"]
        self.best_epoch = int(state["best_epoch"])
        self.stopped_epoch = int(state["stopped_epoch"])
        weights = state["best_weights"]
        self.best_weights = None if weights is None else list(weights)

    def get_monitor_value(self, logs):
        logs = logs or {}
        value = logs.get(self.monitor)
        if value is None:
            warnings.warn(f"Early stopping conditioned on metric `{self.monitor}` which is "
                          f"not available. Available metrics are: {','.join(logs)}",
                          stacklevel=2)
        return value

    def get_config(self) -> dict:
        return {"monitor": self.monitor, "min_delta": self.min_delta,
                "patience": self.patience, "verbose": self.verbose, "mode": self.mode,
                "baseline": self.baseline, "restore_best_weights": self.restore_best_weights,
                "start_from_epoch": self.start_from_epoch}

    @classmethod
    def from_config(cls, config: dict) -> "EarlyStopping":
        return cls(**config)
