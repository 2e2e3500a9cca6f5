"""``CSVLogger``: one row of logs per epoch in a CSV file (Keras 3)."""
from __future__ import annotations

import csv
import os

from ..registry import register_builtin
from .callback import Callback


def _cell(value):
    """Strings as they are; lists and arrays as ``"[a, b]"`` (Keras's format)."""
    if isinstance(value, str):
        return value
    if getattr(value, "ndim", None) == 0:
        return value
    if hasattr(value, "__iter__"):
        return f'"[{", ".join(map(str, value))}]"'
    return value


@register_builtin
class CSVLogger(Callback):
    """Stream the epoch results to a CSV file.

    Each row holds ``epoch`` and the epoch logs, columns in sorted key order. The columns
    are fixed by the first epoch's keys; when that epoch has no ``val_`` keys (validation
    every N epochs), ``val_<key>`` columns are added too. Missing values are written as
    ``NA``. The file is flushed after each row, so it can be read while training runs.

    Args:
        filename: Path of the CSV file (a string or ``os.PathLike``).
        separator: The string that separates the values of a row. Defaults to ``","``.
        append: If ``True``, rows go after those of an earlier run in the same file (no
            second header); if ``False`` (default) the file is overwritten.

    Example:

    >>> model.fit(x, y, callbacks=[CSVLogger("training.log")])
    """

    _keras_module = "keras.callbacks"

    chief_only = True            # under DataParallel, process 0 alone writes the file

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        if not isinstance(filename, (str, os.PathLike)):
            raise TypeError(f"CSVLogger: argument 'filename' must be a string or a path; "
                            f"received {filename!r}")
        if not isinstance(separator, str) or len(separator) != 1:
            raise ValueError(f"CSVLogger: argument 'separator' must be a 1-character "
                             f"string; received {separator!r}")
        self.filename = os.fspath(filename)
        self.sep = separator
        self.append = bool(append)
        self.append_header = True
        self.keys = None
        self.writer = None
        self.csv_file = None

    def on_train_begin(self, logs=None):
        mode = "w"
        if self.append:
            if os.path.exists(self.filename):
                with open(self.filename) as f:
                    self.append_header = not f.readline()
            mode = "a"
        if self.csv_file is not None and not self.csv_file.closed:
            self.csv_file.close()
        self.csv_file = open(self.filename, mode)
        self.writer = None
        self.keys = None

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs)
            if self.keys and not any(key.startswith("val_") for key in self.keys):
                self.keys += ["val_" + key for key in self.keys]
        if self.writer is None:
            dialect = type("LaminaDialect", (csv.excel,), {"delimiter": self.sep})
            self.writer = csv.DictWriter(self.csv_file, fieldnames=["epoch", *self.keys],
                                         dialect=dialect)
            if self.append_header:
                self.writer.writeheader()
        row = {"epoch": epoch}
        row.update((key, _cell(logs.get(key, "NA"))) for key in self.keys)
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs=None):
        if self.csv_file is not None and not self.csv_file.closed:
            self.csv_file.close()
        self.writer = None

    def get_config(self) -> dict:
        return {"filename": self.filename, "separator": self.sep, "append": self.append}

    @classmethod
    def from_config(cls, config: dict) -> "CSVLogger":
        return cls(**config)
