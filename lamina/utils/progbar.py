"""Keras's ``keras.utils.Progbar``: a text progress bar with running metric averages.

``update(current, values)`` moves the bar to step ``current``; ``values`` are
``(name, value)`` pairs. A stateless metric (the default) is shown as its mean over the
steps so far, weighted by the steps each value covers; a stateful one as given. On the
final update a stateless metric shows the value passed then (Keras 3 hands the bar
already-averaged logs at the end). ``verbose=1`` redraws one line, ``verbose=2`` prints
one line when done, ``verbose=0`` prints nothing; with interactive logging disabled
(``lamina.config.disable_interactive_logging``) nothing is printed either.
"""
from __future__ import annotations

import math
import sys
import time

from ..config import is_interactive_logging_enabled


def _format_time(seconds: float, unit_name: str) -> str:
    if seconds >= 1 or seconds == 0:
        return f" {seconds:.0f}s/{unit_name}"
    if seconds >= 1e-3:
        return f" {seconds * 1e3:.0f}ms/{unit_name}"
    return f" {seconds * 1e6:.0f}us/{unit_name}"


def _format_eta(eta: float) -> str:
    if eta > 3600:
        return "%d:%02d:%02d" % (eta // 3600, (eta % 3600) // 60, eta % 60)
    if eta > 60:
        return "%d:%02d" % (eta // 60, eta % 60)
    return "%ds" % eta


class Progbar:
    """A progress bar over ``target`` steps (None if unknown)."""

    def __init__(self, target, width=20, verbose=1, interval=0.05, stateful_metrics=None,
                 stateless_metrics=None, unit_name="step"):
        if stateful_metrics is not None and stateless_metrics is not None:
            raise ValueError("Progbar: pass only one of `stateful_metrics` (the metrics not "
                             "averaged) or `stateless_metrics` (the only metrics averaged)")
        if verbose not in (0, 1, 2):
            raise ValueError(f"Progbar: argument 'verbose' must be 0, 1 or 2; received "
                             f"{verbose!r}")
        self.target, self.width, self.verbose = target, width, verbose
        self.interval, self.unit_name = interval, unit_name
        self.stateful_metrics = None if stateless_metrics is not None else \
            set(stateful_metrics or ())
        self.stateless_metrics = None if stateless_metrics is None else set(stateless_metrics)
        self._values: dict[str, list] = {}
        self._seen_so_far = 0
        self._start = time.time()
        self._last_update = 0.0
        self._time_after_first_step = None
        self._prev_width = 0

    def _is_stateless(self, name: str) -> bool:
        if self.stateful_metrics is not None:
            return name not in self.stateful_metrics
        return name in self.stateless_metrics

    def update(self, current, values=None, finalize=None) -> None:
        """Move to step ``current``; ``values``: ``(name, value_for_last_step)`` pairs."""
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        for name, value in values or []:
            value = float(value)
            if self._is_stateless(name) and not finalize:
                steps = max(current - self._seen_so_far, 1)
                total = self._values.setdefault(name, [0.0, 0])
                total[0] += value * steps
                total[1] += steps
            else:
                self._values[name] = [value, 1]
        self._seen_so_far = current
        now = time.time()
        per_step = self._step_duration(current, now)
        if self.verbose == 1 and (finalize or now - self._last_update >= self.interval):
            self._draw(current, now, per_step, finalize)
        elif self.verbose == 2 and finalize and self.target:
            digits = int(math.log10(self.target)) + 1
            line = (f"{current:{digits}d}/{self.target} - {now - self._start:.0f}s -"
                    f"{_format_time(per_step, self.unit_name)}{self._metrics(signed=True)}\n")
            self._write(line)
        self._last_update = now

    def add(self, n, values=None) -> None:
        """Advance by ``n`` steps."""
        self.update(self._seen_so_far + n, values)

    def _metrics(self, signed: bool = False) -> str:
        # Keras's line-per-epoch form (verbose=2) compares the signed mean with 1e-3
        text = ""
        for name, (total, count) in self._values.items():
            mean = total / max(1, count)
            big = (mean if signed else abs(mean)) > 1e-3
            text += f" - {name}: {mean:.4f}" if big else f" - {name}: {mean:.4e}"
        return text

    def _draw(self, current, now, per_step, finalize) -> None:
        if self.target:
            digits = int(math.log10(self.target)) + 1
            done = int(self.width * min(current / self.target, 1.0))
            bar = f"{current:{digits}d}/{self.target} {'━' * done}{'─' * (self.width - done)}"
        else:
            bar = "%7d/Unknown" % current
        if self.target and not finalize:
            info = f" {_format_eta(per_step * (self.target - current))}"
        else:
            info = f" {now - self._start:.0f}s"
        info += _format_time(per_step, self.unit_name) + self._metrics()
        width = len(bar) + len(info)
        line = "\r" + bar + info + " " * max(self._prev_width - width, 0)
        self._prev_width = width
        self._write(line + ("\n" if finalize else ""))

    def _step_duration(self, current, now) -> float:
        if not current:
            return 0.0
        if self._time_after_first_step is not None and current > 1:
            duration = (now - self._time_after_first_step) / (current - 1)
        else:
            duration = (now - self._start) / current
        if current == 1:
            self._time_after_first_step = now
        return duration

    @staticmethod
    def _write(text: str) -> None:
        if is_interactive_logging_enabled():
            sys.stdout.write(text)
            sys.stdout.flush()
