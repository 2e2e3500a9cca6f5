"""``ProgbarLogger``: progress on stdout, in Keras 3's words, drawn with tqdm.

``verbose=1``: ``Epoch 1/5`` then a bar per epoch with ETA and the running loss and
metrics, ending as ``47/47 ━━━━━━━━━━━━━━━━━━━━ 1s 12ms/step - accuracy: 0.9123 - loss:
0.2871 - val_accuracy: ...``. When stdout is not a terminal (a log file, CI), no bar and
no control codes: only that final line per epoch. ``verbose=2``: the final line only.
"""
from __future__ import annotations

import sys
import time

from .callback import Callback

BAR = "━" * 20


def format_value(value) -> str:
    if isinstance(value, float):
        return f"{value:.4f}" if abs(value) > 1e-3 else f"{value:.4e}"
    return str(value)


def format_logs(logs: dict) -> str:
    return "".join(f" - {key}: {format_value(value)}" for key, value in logs.items()
                   if isinstance(value, (int, float)))


def format_duration(seconds: float) -> str:
    if seconds >= 3600:
        return f"{int(seconds // 3600)}:{int(seconds % 3600 // 60):02d}:{int(seconds % 60):02d}"
    if seconds >= 60:
        return f"{int(seconds // 60)}:{int(seconds % 60):02d}"
    return f"{int(seconds)}s"


def format_per_step(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.0f}s/step"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.0f}ms/step"
    return f"{seconds * 1e6:.0f}us/step"


class ProgbarLogger(Callback):
    """Added by fit/evaluate/predict when ``verbose`` is not 0."""

    def __init__(self):
        super().__init__()
        self._bar = None
        self._start = 0.0
        self._seen = 0
        self._in_fit = False

    @property
    def _verbose(self) -> int:
        return int(self.params.get("verbose", 1))

    @property
    def _dynamic(self) -> bool:
        return self._verbose == 1 and getattr(sys.stdout, "isatty", lambda: False)()

    def _begin(self) -> None:
        self._start = time.perf_counter()
        self._seen = 0
        if self._dynamic:
            from tqdm import tqdm
            self._bar = tqdm(total=self.params.get("steps"), file=sys.stdout, ascii=" ━",
                             bar_format="{n_fmt}/{total_fmt} {bar:20} {remaining} {postfix}",
                             leave=False, dynamic_ncols=False, mininterval=0.05)

    def _update(self, batch: int, logs: dict) -> None:
        # With steps_per_execution the last batch index may pass the end (as in Keras 3).
        steps = self.params.get("steps")
        self._seen = min(batch + 1, steps) if steps else batch + 1
        if self._bar is not None:
            self._bar.update(self._seen - self._bar.n)
            self._bar.set_postfix_str(format_logs(logs).lstrip(" -"), refresh=False)

    def _end(self, logs: dict) -> None:
        elapsed = time.perf_counter() - self._start
        steps = self._seen or 1
        total = self.params.get("steps") or self._seen
        if self._bar is not None:
            self._bar.close()                     # leave=False: the bar clears itself
            self._bar = None
        if self._verbose == 2:
            line = f"{total}/{total} - {format_duration(elapsed)} - " \
                   f"{format_per_step(elapsed / steps)}{format_logs(logs)}"
        else:
            line = f"{self._seen}/{total} {BAR} {format_duration(elapsed)} " \
                   f"{format_per_step(elapsed / steps)}{format_logs(logs)}"
        print(line, file=sys.stdout, flush=True)

    # ---------------------------------------------------------------- fit
    def on_train_begin(self, logs=None):
        self._in_fit = True

    def on_train_end(self, logs=None):
        self._in_fit = False

    def on_epoch_begin(self, epoch, logs=None):
        if self._verbose:
            print(f"Epoch {epoch + 1}/{self.params.get('epochs')}", file=sys.stdout,
                  flush=True)
        self._begin()

    def on_train_batch_end(self, batch, logs=None):
        self._update(batch, logs or {})

    def on_epoch_end(self, epoch, logs=None):
        self._end(logs or {})

    # ---------------------------------------------------------------- evaluate / predict
    def on_test_begin(self, logs=None):
        if not self._in_fit:
            self._begin()

    def on_test_batch_end(self, batch, logs=None):
        if not self._in_fit:
            self._update(batch, logs or {})

    def on_test_end(self, logs=None):
        if not self._in_fit:
            self._end(logs or {})

    def on_predict_begin(self, logs=None):
        self._begin()

    def on_predict_batch_end(self, batch, logs=None):
        self._update(batch, {})

    def on_predict_end(self, logs=None):
        self._end({})
