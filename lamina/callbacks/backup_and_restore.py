"""``BackupAndRestore``: resume an interrupted ``fit`` from its last backup (Keras 3)."""
from __future__ import annotations

import json
import os
import shutil

from ..saving.object_registration import register_builtin
from .callback import Callback
from .model_checkpoint import check_save_freq

WEIGHTS_FILE = "latest.weights.h5"
METADATA_FILE = "training_metadata.json"
PREVIOUS = ".bkp"           # suffix of the older state kept by double_checkpoint


@register_builtin
class BackupAndRestore(Callback):
    """Back up the training state to ``backup_dir`` at each epoch end (or every
    ``save_freq`` batches): the weights, with the optimizer's state, in
    ``latest.weights.h5`` (``model.save_weights``) and ``{"epoch", "batch"}`` in
    ``training_metadata.json``. When ``fit`` starts and a backup exists, the weights are
    loaded and training resumes at the first epoch the backup had not finished. A
    successful ``fit`` deletes ``backup_dir`` unless ``delete_checkpoint=False``.

    With ``double_checkpoint=True`` the previous state is kept as ``*.bkp`` and used when
    the latest one cannot be loaded (say the job died while writing it).

    Use a ``backup_dir`` of its own: it is deleted as a whole at the end.

    >>> backup = BackupAndRestore(backup_dir="/tmp/backup")
    >>> model.fit(x, y, epochs=10, callbacks=[backup])   # interrupted in epoch 5 ...
    >>> model.fit(x, y, epochs=10, callbacks=[backup])   # ... runs epochs 5 to 10 only
    """

    _keras_module = "keras.callbacks"

    def __init__(self, backup_dir, save_freq="epoch", double_checkpoint=False,
                 delete_checkpoint=True):
        super().__init__()
        if not backup_dir:
            raise ValueError(f"BackupAndRestore: empty `backup_dir` argument passed; "
                             f"expected a directory path, received {backup_dir!r}")
        if not isinstance(backup_dir, (str, os.PathLike)):
            raise TypeError(f"BackupAndRestore: argument 'backup_dir' must be a string or "
                            f"a path; received {backup_dir!r}")
        self.backup_dir = os.fspath(backup_dir)
        self.save_freq = check_save_freq("BackupAndRestore", save_freq)
        self.double_checkpoint = bool(double_checkpoint)
        self.delete_checkpoint = bool(delete_checkpoint)
        self._weights_path = os.path.join(self.backup_dir, WEIGHTS_FILE)
        self._training_metadata_path = os.path.join(self.backup_dir, METADATA_FILE)
        self._prev_weights_path = self._weights_path + PREVIOUS
        self._prev_training_metadata_path = self._training_metadata_path + PREVIOUS
        self._batches_seen_since_last_saving = 0
        self._last_batch_seen = 0
        self._current_epoch = 0

    # ---------------------------------------------------------------- restore
    def on_train_begin(self, logs=None):
        if not getattr(self.model, "built", True):
            raise ValueError(f"To use the BackupAndRestore callback, your model must be "
                             f"built before you call `fit()`. Model {self.model.name!r} is "
                             f"unbuilt. You can build it beforehand by calling it on a "
                             f"batch of data or with model.build(input_shape).")
        try:
            self._load_model()
        except (OSError, ValueError, KeyError):
            if not (self.double_checkpoint and os.path.exists(self._prev_weights_path)):
                raise
            # The latest backup is unreadable: fall back to the one before it.
            shutil.copyfile(self._prev_weights_path, self._weights_path)
            if os.path.exists(self._prev_training_metadata_path):
                shutil.copyfile(self._prev_training_metadata_path,
                                self._training_metadata_path)
            elif os.path.exists(self._training_metadata_path):
                os.remove(self._training_metadata_path)
            self._load_model()

    def _load_model(self) -> None:
        self._current_epoch = 0
        if os.path.exists(self._weights_path):
            optimizer = getattr(self.model, "optimizer", None)
            if optimizer is not None and not getattr(optimizer, "built", True):
                # The optimizer's slots must exist for their saved values to load.
                optimizer.build(self.model.trainable_variables)
            self.model.load_weights(self._weights_path)
        if os.path.exists(self._training_metadata_path):
            with open(self._training_metadata_path) as f:
                metadata = json.load(f)
            # fit() reads this right after on_train_begin and starts at this epoch.
            self.model._initial_epoch = self._current_epoch = int(metadata["epoch"])

    # ---------------------------------------------------------------- back up
    def on_epoch_end(self, epoch, logs=None):
        self._current_epoch = epoch + 1
        self._last_batch_seen = 0
        if self.save_freq == "epoch":
            self._save_model()

    def on_train_batch_end(self, batch, logs=None):
        if self._should_save_on_batch(batch):
            self._save_model()

    def _should_save_on_batch(self, batch: int) -> bool:
        if self.save_freq == "epoch":
            return False
        added = batch + 1 if batch <= self._last_batch_seen else batch - self._last_batch_seen
        self._batches_seen_since_last_saving += added
        self._last_batch_seen = batch
        if self._batches_seen_since_last_saving >= self.save_freq:
            self._batches_seen_since_last_saving = 0
            return True
        return False

    def _save_model(self) -> None:
        os.makedirs(self.backup_dir, exist_ok=True)
        if self.double_checkpoint:
            for path in (self._weights_path, self._training_metadata_path):
                if os.path.exists(path):
                    shutil.copyfile(path, path + PREVIOUS)
        self.model.save_weights(self._weights_path, overwrite=True)
        with open(self._training_metadata_path, "w") as f:
            json.dump({"epoch": self._current_epoch, "batch": self._last_batch_seen}, f)

    def on_train_end(self, logs=None):
        if self.delete_checkpoint and os.path.exists(self.backup_dir):
            shutil.rmtree(self.backup_dir)

    def get_config(self) -> dict:
        return {"backup_dir": self.backup_dir, "save_freq": self.save_freq,
                "double_checkpoint": self.double_checkpoint,
                "delete_checkpoint": self.delete_checkpoint}

    @classmethod
    def from_config(cls, config: dict) -> "BackupAndRestore":
        return cls(**config)
