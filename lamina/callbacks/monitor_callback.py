"""``MonitorCallback``: the "is this value better than the best so far?" rule shared by
ModelCheckpoint, EarlyStopping and ReduceLROnPlateau (Keras 3's
``keras/src/callbacks/monitor_callback.py``).

``mode="auto"`` picks the direction, in this order:

1. ``loss`` and ``<output>_loss`` (with or without ``val_``) are minimized;
2. a compiled metric of that name with a ``_direction`` ("up"/"down") decides;
3. a name ending in accuracy/acc/auc/precision/recall is maximized (Keras 2's name rule,
   for metrics that are plain functions);
4. otherwise a ValueError asks for ``mode="min"`` or ``mode="max"``.
"""
from __future__ import annotations

import warnings

from .. import ops
from .callback import Callback
from ..traceback_filter import user_stacklevel

MODES = ("auto", "min", "max")
_MAXIMIZED_SUFFIXES = ("acc", "accuracy", "auc", "precision", "recall")


def check_non_negative_int(owner: str, name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{owner}: argument '{name}' must be a non-negative int; received "
                         f"{value!r}")
    return value


def check_number(owner: str, name: str, value, allow_none: bool = False):
    if value is None and allow_none:
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        if not (hasattr(value, "__float__") and getattr(value, "shape", ()) == ()):
            raise TypeError(f"{owner}: argument '{name}' must be a number"
                            f"{' or None' if allow_none else ''}; received {value!r}")
    return value


def _compiled_metrics(model) -> list:
    """The model's metric objects, with the compiled ones taken out of their container."""
    found = []
    for metric in getattr(model, "metrics", None) or []:
        inner = getattr(metric, "metrics", None)
        found.extend(inner if isinstance(inner, list) else [metric])
    return found


class MonitorCallback(Callback):
    """Base of the callbacks that watch ``monitor`` in the epoch logs."""

    def __init__(self, monitor="val_loss", mode="auto", baseline=None, min_delta=0):
        super().__init__()
        owner = type(self).__name__
        if not isinstance(monitor, str):
            raise TypeError(f"{owner}: argument 'monitor' must be the name of a logged "
                            f"quantity such as 'val_loss'; received {monitor!r}")
        if mode not in MODES:
            warnings.warn(f"{owner} mode '{mode}' is unknown, fallback to auto mode.",
                          stacklevel=user_stacklevel())
            mode = "auto"
        check_number(owner, "min_delta", min_delta)
        check_number(owner, "baseline", baseline, allow_none=True)
        self.monitor = monitor
        self.mode = mode
        self.best = baseline
        self.min_delta = abs(min_delta)
        self.monitor_op = None
        self._signed_delta = self.min_delta

    def _direction(self) -> str:
        if self.mode != "auto":
            return self.mode
        name = self.monitor.removeprefix("val_")
        if name == "loss" or name.endswith("_loss"):
            return "min"
        for metric in _compiled_metrics(self.model):
            direction = getattr(metric, "_direction", None)
            if getattr(metric, "name", None) == name and direction in ("up", "down"):
                return "max" if direction == "up" else "min"
        if name.endswith(_MAXIMIZED_SUFFIXES):
            return "max"
        raise ValueError(
            f"{type(self).__name__} callback received monitor={self.monitor}, but it cannot "
            f"tell whether that metric should be maximized or minimized (mode='auto' knows "
            f"losses, metrics with a direction, and names ending in "
            f"{', '.join(_MAXIMIZED_SUFFIXES)}). Pass `mode='max'` in order to monitor "
            f"based on the highest metric value, or pass `mode='min'` in order to use the "
            f"lowest value.")

    def _set_monitor_op(self) -> None:
        """Fix the direction; delayed to the first epoch end, when metrics are built."""
        if self._direction() == "min":
            self.monitor_op = ops.less       # Keras's comparison ops, as Keras sets them
            self._signed_delta = -self.min_delta     # "better" means below best - delta
        else:
            self.monitor_op = ops.greater
            self._signed_delta = self.min_delta
        if self.best is None:
            self.best = float("inf") if self.monitor_op is ops.less else -float("inf")

    def _is_improvement(self, monitor_value, reference_value) -> bool:
        if self.monitor_op is None:
            self._set_monitor_op()
        if reference_value is None:
            return True
        return bool(self.monitor_op(monitor_value - self._signed_delta, reference_value))
