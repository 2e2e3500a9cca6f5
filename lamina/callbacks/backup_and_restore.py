"""``BackupAndRestore``: resume an interrupted ``fit`` exactly where its last backup was made."""
from __future__ import annotations

import json
import os
import shutil
import warnings

from ..distribution.strategies import is_chief
from ..saving import rng_state, training_state
from ..saving.atomic import atomic_path
from ..registry import register_builtin
from ..saving.training_state import remove_leftovers
from .callback import Callback
from .model_checkpoint import check_save_freq

WEIGHTS_FILE = "latest.weights.h5"
METADATA_FILE = "training_metadata.json"
PREVIOUS = ".bkp"           # suffix of the older state kept by double_checkpoint


@register_builtin
class BackupAndRestore(Callback):
    """Back up the training state so that an interrupted ``fit`` resumes where it stopped.

    The state is saved to ``backup_dir`` after each epoch (or every ``save_freq``
    batches); when ``fit`` starts and a backup exists, it is restored and training goes on
    from there, so that the resumed run trains exactly as an uninterrupted one (the same
    losses, weights and early stop) — more than Keras keeps.

    A backup is ``latest.weights.h5`` (``model.save_weights``: the weights and the
    optimizer's state, slots, iteration count and learning rate included) with a
    ``training_state`` group added (:mod:`lamina.saving.training_state`): the epoch and
    step, numpy's, Python's and Lamina's random states (the shuffle order, every layer's
    dropout generator), the running metrics of a half-done epoch, and the ``get_state()``
    of the other callbacks of the ``fit`` that have ``get_state``/``set_state``
    (EarlyStopping, ReduceLROnPlateau, ModelCheckpoint). It is written to a temporary file
    and renamed into place, so a run killed while backing up keeps the previous backup
    whole. ``training_metadata.json`` holds ``{"epoch", "batch"}`` as Keras writes it.
    An epoch's backup is written when the next epoch begins (or training ends), after
    every callback has acted on the epoch's logs.

    Use a ``backup_dir`` of its own: it is deleted as a whole at the end.

    Args:
        backup_dir: Path of the folder that holds the backup. Required; a folder of its
            own, since a successful ``fit`` deletes it.
        save_freq: ``"epoch"`` (default) to back up at the end of every epoch, or an int
            ``N`` to back up every ``N`` training batches. A backup made in the middle of an
            epoch resumes in that epoch: the same shuffle order is drawn again and the
            batches already trained are skipped.
        double_checkpoint: If ``True``, the previous backup is kept as ``*.bkp`` and used
            when the latest one cannot be loaded.
        delete_checkpoint: If ``True`` (default), ``backup_dir`` is deleted when ``fit``
            ends successfully; ``False`` keeps it.

    Example:

    >>> backup = BackupAndRestore(backup_dir="/tmp/backup")
    >>> model.fit(x, y, epochs=10, callbacks=[backup])   # killed in epoch 5 ...
    >>> model.fit(x, y, epochs=10, callbacks=[backup])   # ... runs epochs 5 to 10 only
    """

    _keras_module = "keras.callbacks"

    def __init__(self, backup_dir, save_freq="epoch", double_checkpoint=False,
                 delete_checkpoint=True):
        super().__init__()
        if not backup_dir:
            raise ValueError(f"BackupAndRestore: Empty `backup_dir` argument passed; "
                             f"expected a directory path, received {backup_dir!r}")
        if not isinstance(backup_dir, (str, os.PathLike)):
            raise TypeError(f"BackupAndRestore: argument 'backup_dir' must be a string or "
                            f"a path; received {backup_dir!r}")
        self.backup_dir = os.fspath(backup_dir)
        self.save_freq = check_save_freq("BackupAndRestore", save_freq,
                                         "Invalid value for argument `save_freq`")
        self.double_checkpoint = bool(double_checkpoint)
        self.delete_checkpoint = bool(delete_checkpoint)
        self._weights_path = os.path.join(self.backup_dir, WEIGHTS_FILE)
        self._training_metadata_path = os.path.join(self.backup_dir, METADATA_FILE)
        self._prev_weights_path = self._weights_path + PREVIOUS
        self._prev_training_metadata_path = self._training_metadata_path + PREVIOUS
        self._batches_seen_since_last_saving = 0
        self._last_batch_seen = 0
        self._current_epoch = 0
        self._siblings: list = []         # the fit's other callbacks (set_callback_list)
        self._restored = None             # a loaded state to hand out at the epoch's start
        self._epoch_ended = False         # an epoch ended and is not backed up yet
        self._epoch_host_rng = None       # numpy's / Python's state when the epoch began

    def set_callback_list(self, callbacks) -> None:
        """Called by ``fit`` with its CallbackList: the callbacks whose state is backed up."""
        self._siblings = [c for c in callbacks.callbacks if c is not self]

    # ---------------------------------------------------------------- restore
    def on_train_begin(self, logs=None):
        if not getattr(self.model, "built", True):
            raise ValueError(f"To use the BackupAndRestore callback, your model must be "
                             f"built before you call `fit()`. Model {self.model.name!r} is "
                             f"unbuilt. You can build it beforehand by calling it on a "
                             f"batch of data or with model.build(input_shape).")
        self._epoch_ended = False
        if is_chief():           # under DataParallel, process 0 alone writes backups
            remove_leftovers(self.backup_dir, (WEIGHTS_FILE, METADATA_FILE))
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
        self._current_epoch, step, self._restored = 0, 0, None
        if os.path.exists(self._weights_path):
            state = training_state.read_state(self._weights_path) \
                if training_state.is_hdf5(self._weights_path) else None
            if state is not None:
                rng_state.check(self.model, state["rng"], self._weights_path)
            optimizer = getattr(self.model, "optimizer", None)
            if optimizer is not None and not getattr(optimizer, "built", True):
                # The optimizer's slots must exist for their saved values to load.
                optimizer.build(self.model.trainable_variables)
            self.model.load_weights(self._weights_path)
            if state is not None:
                if rng_state.restore(self.model, state["rng"], self._weights_path):
                    # Dropout keys are baked into traced steps: make fit trace anew.
                    self.model.train_function = None
                self._current_epoch, step = int(state["epoch"]), int(state["step"])
                self._restored = state
                self._last_batch_seen = max(step - 1, 0)
                self._batches_seen_since_last_saving = 0
        if self._restored is None and os.path.exists(self._training_metadata_path):
            # A backup without Lamina's state (Keras's): resume at the epoch only.
            with open(self._training_metadata_path) as f:
                self._current_epoch = int(json.load(f)["epoch"])
        if self._restored is not None or os.path.exists(self._training_metadata_path):
            # fit() reads these right after on_train_begin: it starts at this epoch and
            # skips the batches of it that the backup had trained on.
            self.model._initial_epoch = self._current_epoch
            self.model._initial_step = step

    def on_epoch_begin(self, epoch, logs=None):
        self._current_epoch = epoch
        if self._epoch_ended:
            self._save_model(step=0)
        # Before this epoch draws its shuffle order: a backup made within the epoch
        # stores it, so that the resumed run draws the same order again.
        self._epoch_host_rng = rng_state.collect_host()
        state, self._restored = self._restored, None
        if state is None:
            return
        # Every callback's on_train_begin has run (and reset itself): now restore them.
        training_state.restore_callback_states(self._siblings, state["callbacks"],
                                               self._weights_path)
        if state["step"] and state["epoch"] == epoch:
            missing = training_state.restore_metric_states(self.model, state["metrics"])
            if missing:
                warnings.warn(f"BackupAndRestore: resumed after batch {state['step']} of "
                              f"epoch {epoch + 1}; that epoch's values of {missing} cover "
                              f"only the batches after the resume (compiled metrics are "
                              f"built by the first training step)", stacklevel=2)

    # ---------------------------------------------------------------- back up
    def on_epoch_end(self, epoch, logs=None):
        # Saved when the next epoch begins (or training ends), once every callback has
        # seen this epoch's logs: a reduced learning rate, EarlyStopping's count.
        self._current_epoch = epoch + 1
        self._last_batch_seen = 0
        self._epoch_ended = self.save_freq == "epoch"

    def on_train_batch_end(self, batch, logs=None):
        if self._should_save_on_batch(batch):
            self._save_model(step=batch + 1)

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

    def _save_model(self, step: int) -> None:
        """Back up the state after ``step`` batches of epoch ``_current_epoch`` (step 0:
        at the epoch's start, i.e. the end of the one before)."""
        self._epoch_ended = False
        if not is_chief():
            return
        os.makedirs(self.backup_dir, exist_ok=True)
        if self.double_checkpoint:
            for path in (self._weights_path, self._training_metadata_path):
                if os.path.exists(path):
                    # Atomic too: a failed copy must not truncate the older backup.
                    with atomic_path(path + PREVIOUS, "BackupAndRestore") as temporary:
                        shutil.copyfile(path, temporary)
        state = {"epoch": self._current_epoch, "step": step,
                 "rng": rng_state.collect(self.model, self._epoch_host_rng if step else None),
                 "metrics": training_state.metric_states(self.model) if step else {},
                 "callbacks": {key: callback.get_state() for key, callback in
                               training_state.stateful_callbacks(self._siblings)}}
        if not training_state.save_weights_with_state(self.model, self._weights_path, state):
            warnings.warn(f"BackupAndRestore: model.save_weights wrote '{self._weights_path}'"
                          f" in a format other than HDF5, so the backup holds no random, "
                          f"metric or callback state: a resumed fit starts at the epoch "
                          f"only", stacklevel=2)
        with atomic_path(self._training_metadata_path, "BackupAndRestore") as temporary:
            with open(temporary, "w") as f:
                json.dump({"epoch": self._current_epoch, "batch": self._last_batch_seen}, f)

    def on_train_end(self, logs=None):
        if self.delete_checkpoint:
            self._epoch_ended = False
            if os.path.exists(self.backup_dir) and is_chief():
                shutil.rmtree(self.backup_dir)
        elif self._epoch_ended:
            self._save_model(step=0)

    def get_config(self) -> dict:
        return {"backup_dir": self.backup_dir, "save_freq": self.save_freq,
                "double_checkpoint": self.double_checkpoint,
                "delete_checkpoint": self.delete_checkpoint}

    @classmethod
    def from_config(cls, config: dict) -> "BackupAndRestore":
        return cls(**config)
