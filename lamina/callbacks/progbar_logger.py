"""``ProgbarLogger``: progress on stdout as Keras 3 prints it, through :class:`Progbar`.

``verbose=1``: ``Epoch 1/5`` (when there is more than one epoch), then a live bar per
epoch, on a terminal byte for byte Keras's, ending as ``47/47 ━━━━━━━━━━━━━━━━━━━━ 1s
12ms/step - accuracy: 0.9123 - loss: 0.2871 - val_accuracy: ...``. When stdout is not a
terminal (a log file, CI), no control codes: only that final line per epoch.
``verbose=2``: the final line only, without the bar.
"""
from __future__ import annotations

from .callback import Callback
from .progbar import Progbar


class ProgbarLogger(Callback):
    """Added by fit/evaluate/predict when ``verbose`` is not 0."""

    def __init__(self):
        super().__init__()
        self.seen = 0
        self.progbar = None
        self.target = None
        self.verbose = 1
        self.epochs = 1
        self._called_in_fit = False

    def set_params(self, params: dict) -> None:
        super().set_params(params)
        verbose = params.get("verbose", 1)
        self.verbose = 1 if verbose == "auto" else int(verbose)
        self.epochs = params.get("epochs", 1)
        self.target = params.get("steps")

    def _reset(self) -> None:
        self.seen = 0
        self.progbar = None

    def _ensure_progbar(self) -> None:
        if self.progbar is None:
            self.progbar = Progbar(target=self.target, verbose=self.verbose, unit_name="step",
                                   stateless_metrics=set())

    def _update(self, batch: int, logs) -> None:
        self._ensure_progbar()
        self.seen = batch + 1
        if self.verbose == 1:
            self.progbar.update(self.seen, list((logs or {}).items()), finalize=False)

    def _finalize(self, logs) -> None:
        self._ensure_progbar()
        if self.target is None:
            self.target = self.seen
            self.progbar.target = self.target
        # With steps_per_execution the last batch index may pass the end (as in Keras 3).
        self.progbar.update(self.target, list((logs or {}).items()), finalize=True)

    # ---------------------------------------------------------------- fit
    def on_train_begin(self, logs=None):
        self._called_in_fit = True             # validation inside fit is silent

    def on_train_end(self, logs=None):
        self._called_in_fit = False

    def on_epoch_begin(self, epoch, logs=None):
        self._reset()
        self._ensure_progbar()
        if self.verbose and self.epochs > 1:
            Progbar._write(f"Epoch {epoch + 1}/{self.epochs}\n")

    def on_train_batch_end(self, batch, logs=None):
        self._update(batch, logs)

    def on_epoch_end(self, epoch, logs=None):
        self._finalize(logs)

    # ---------------------------------------------------------------- evaluate / predict
    def on_test_begin(self, logs=None):
        if not self._called_in_fit:
            self._reset()
            self._ensure_progbar()

    def on_test_batch_end(self, batch, logs=None):
        if not self._called_in_fit:
            self._update(batch, logs)

    def on_test_end(self, logs=None):
        if not self._called_in_fit:
            self._finalize(logs)

    def on_predict_begin(self, logs=None):
        self._reset()
        self._ensure_progbar()

    def on_predict_batch_end(self, batch, logs=None):
        self._update(batch, None)              # not the predictions

    def on_predict_end(self, logs=None):
        self._finalize(logs)
