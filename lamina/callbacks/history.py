"""``History``: every epoch's logs, returned by ``fit``."""
from __future__ import annotations

from .callback import Callback


class History(Callback):
    """``history.history[key]`` lists one value per epoch; ``history.epoch`` the epochs."""

    def __init__(self):
        super().__init__()
        self.history: dict[str, list] = {}
        self.epoch: list[int] = []

    def on_train_begin(self, logs=None):
        self.epoch = []
        self.history = {}

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for key, value in (logs or {}).items():
            self.history.setdefault(key, []).append(value)
