"""``ModelCheckpoint``: save the model or its weights during training (Keras 3)."""
from __future__ import annotations

import os
import warnings

from ..registry import register_builtin
from .monitor_callback import MonitorCallback, check_number
from ..distribution.strategies import is_chief
from ..traceback_filter import user_stacklevel

WEIGHTS_SUFFIX = ".weights.h5"
MODEL_SUFFIXES = (".keras", ".h5")


def check_save_freq(owner: str, save_freq, phrase: str = "Unrecognized save_freq"):
    """``save_freq`` as given, when it is 'epoch' or a positive int; ``phrase`` opens the
    error's description (Keras's words differ between ModelCheckpoint and BackupAndRestore)."""
    if save_freq == "epoch":
        return save_freq
    if isinstance(save_freq, bool) or not isinstance(save_freq, int) or save_freq < 1:
        raise ValueError(f"{owner}: {phrase}: {save_freq!r}. Expected save_freq "
                         f"are 'epoch' or a positive integer number of batches")
    return save_freq


@register_builtin
class ModelCheckpoint(MonitorCallback):
    """Save the model or its weights while training runs.

    Files are written at the end of every epoch (``save_freq="epoch"``) or every
    ``save_freq`` batches, with ``model.save(path)`` or, with ``save_weights_only``,
    ``model.save_weights(path)``.

    Args:
        filepath: Where to save: it must end in ``.keras`` (or ``.h5``), or in
            ``.weights.h5`` with ``save_weights_only=True``. It is formatted with ``epoch``
            (1-based), ``batch`` (1-based, when saving every N batches) and the logs:
            ``"ckpt/{epoch:02d}-{val_loss:.2f}.keras"``.
        monitor: Name of the logged quantity that ``save_best_only`` compares. Defaults
            to ``"val_loss"``.
        verbose: ``0`` is silent; ``1`` prints a message at each save.
        save_best_only: If ``True``, a file is written only when ``monitor`` improves on
            the best value so far (or on ``initial_value_threshold``).
        save_weights_only: If ``True``, save only the weights (``model.save_weights``).
        mode: ``"min"``, ``"max"`` or ``"auto"`` (default): whether a lower or a higher
            ``monitor`` is better; ``"auto"`` infers it from the name.
        save_freq: ``"epoch"`` (default) or an int number of batches between saves.
        initial_value_threshold: The value of ``monitor`` the first save must beat with
            ``save_best_only``; ``None`` (default) for none.

    Raises:
        ValueError: If ``filepath`` does not end in a suffix that fits
            ``save_weights_only``.

    Example:

    >>> checkpoint = ModelCheckpoint("best.keras", monitor="val_accuracy",
    ...                              save_best_only=True)
    >>> model.fit(x, y, validation_split=0.2, epochs=10, callbacks=[checkpoint])
    """

    _keras_module = "keras.callbacks"

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False,
                 save_weights_only=False, mode="auto", save_freq="epoch",
                 initial_value_threshold=None):
        check_number("ModelCheckpoint", "initial_value_threshold", initial_value_threshold,
                     allow_none=True)
        super().__init__(monitor, mode, baseline=initial_value_threshold)
        if not isinstance(filepath, (str, os.PathLike)):
            raise TypeError(f"ModelCheckpoint: argument 'filepath' must be a string or a "
                            f"path; received {filepath!r}")
        self.filepath = os.fspath(filepath)
        self.verbose = verbose
        self.save_best_only = bool(save_best_only)
        self.save_weights_only = bool(save_weights_only)
        self.save_freq = check_save_freq("ModelCheckpoint", save_freq)
        self.initial_value_threshold = initial_value_threshold
        self._batches_seen_since_last_saving = 0
        self._last_batch_seen = 0
        self._current_epoch = 0
        if self.save_weights_only and not self.filepath.endswith(WEIGHTS_SUFFIX):
            raise ValueError(
                f"When using `save_weights_only=True` in `ModelCheckpoint`, the filepath "
                f"provided must end in `{WEIGHTS_SUFFIX}` (Keras weights format). "
                f"Received: filepath={self.filepath}")
        if not self.save_weights_only and not self.filepath.endswith(MODEL_SUFFIXES):
            raise ValueError(
                f"The filepath provided must end in `.keras` (Keras model format) or `.h5` "
                f"(legacy HDF5) when `ModelCheckpoint` saves the whole model; to save only "
                f"the weights pass save_weights_only=True and a path ending in "
                f"`{WEIGHTS_SUFFIX}`. Received: filepath={self.filepath}")

    def on_epoch_begin(self, epoch, logs=None):
        self._current_epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if self._should_save_on_batch(batch):
            self._save_model(self._current_epoch, batch, logs)

    def on_epoch_end(self, epoch, logs=None):
        if self.monitor_op is None:
            self._set_monitor_op()      # delayed until the metrics are built
        if self.save_freq == "epoch":
            self._save_model(epoch, None, logs)

    def _should_save_on_batch(self, batch: int) -> bool:
        if self.save_freq == "epoch":
            return False
        if batch <= self._last_batch_seen:          # a new epoch started
            added = batch + 1
        else:
            added = batch - self._last_batch_seen
        self._batches_seen_since_last_saving += added
        self._last_batch_seen = batch
        if self._batches_seen_since_last_saving >= self.save_freq:
            self._batches_seen_since_last_saving = 0
            return True
        return False

    def _should_save_model(self, epoch: int, logs: dict, filepath: str) -> bool:
        if not self.save_best_only:
            if self.verbose > 0:
                print(f"\nEpoch {epoch + 1}: saving model to {filepath}", flush=True)
            return True
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(f"Can save best model only with {self.monitor} available.",
                          stacklevel=user_stacklevel())
            return True
        if self.monitor_op is None:
            self._set_monitor_op()      # saving every N batches before the first epoch end
        best = "None" if self.best is None else f"{self.best:.5f}"
        if self._is_improvement(current, self.best):
            if self.verbose > 0:
                print(f"\nEpoch {epoch + 1}: {self.monitor} improved from {best} to "
                      f"{current:.5f}, saving model to {filepath}", flush=True)
            self.best = current
            return True
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {best}",
                  flush=True)
        return False

    def _save_model(self, epoch: int, batch, logs) -> None:
        logs = logs or {}
        filepath = self._get_file_path(epoch, batch, logs)
        if not self._should_save_model(epoch, logs, filepath) or not is_chief():
            return                   # under DataParallel, process 0 alone writes
        if os.path.isdir(filepath):
            raise IsADirectoryError(f"Please specify a non-directory filepath for "
                                    f"ModelCheckpoint. Filepath used is an existing "
                                    f"directory: {filepath}")
        dirname = os.path.dirname(filepath)
        if dirname:
            os.makedirs(dirname, exist_ok=True)
        if self.save_weights_only:
            self.model.save_weights(filepath, overwrite=True)
        else:
            self.model.save(filepath, overwrite=True)

    def _get_file_path(self, epoch: int, batch, logs: dict) -> str:
        try:
            if batch is None or "batch" in logs:
                return self.filepath.format(epoch=epoch + 1, **logs)
            return self.filepath.format(epoch=epoch + 1, batch=batch + 1, **logs)
        except KeyError as exc:
            raise KeyError(f'Failed to format this callback filepath: "{self.filepath}". '
                           f"Reason: {exc}; the logs have {sorted(logs)}") from None

    def get_state(self) -> dict:
        """The best value so far, for ``save_best_only`` after a resume (BackupAndRestore)."""
        return {"best": self.best}

    def set_state(self, state: dict) -> None:
        self.best = state["best"]

    def get_config(self) -> dict:
        return {"filepath": self.filepath, "monitor": self.monitor, "verbose": self.verbose,
                "save_best_only": self.save_best_only,
                "save_weights_only": self.save_weights_only, "mode": self.mode,
                "save_freq": self.save_freq,
                "initial_value_threshold": self.initial_value_threshold}

    @classmethod
    def from_config(cls, config: dict) -> "ModelCheckpoint":
        return cls(**config)
