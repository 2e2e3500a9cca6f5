"""Keras's ``keras.utils.Progbar``: a progress bar with running metric averages.

``update(current, values)`` moves the bar to step ``current``; ``values`` are
``(name, value)`` pairs. A stateless metric (the default) is shown as its mean over the
steps so far, weighted by the steps each value covers; a stateful one as given. On the
final update a stateless metric shows the value passed then (Keras 3 hands the bar
already-averaged logs at the end).

``verbose=1`` on a terminal redraws one line with the very bytes Keras 3 writes (bold
counts and times, a green and grey bar, backspaces over the previous line), whatever size
the terminal reports; when stdout is not a terminal (a log file, CI) it writes no control
codes and no intermediate lines, only the final line. ``verbose=2`` writes the final line
only, ``verbose=0`` nothing, and nothing is written while interactive logging is disabled
(``lamina.config.disable_interactive_logging``).
"""
from __future__ import annotations

import math
import sys
import time

from ..settings import is_interactive_logging_enabled

BOLD, GREEN, GREY, RESET = "\x1b[1m", "\x1b[32m", "\x1b[37m", "\x1b[0m"


def format_time(seconds: float, unit_name: str) -> str:
    if seconds >= 1 or seconds == 0:
        return f" {seconds:.0f}s/{unit_name}"
    if seconds >= 1e-3:
        return f" {seconds * 1e3:.0f}ms/{unit_name}"
    return f" {seconds * 1e6:.0f}us/{unit_name}"


def format_eta(eta: float) -> str:
    if eta > 3600:
        return "%d:%02d:%02d" % (eta // 3600, (eta % 3600) // 60, eta % 60)
    if eta > 60:
        return "%d:%02d" % (eta // 60, eta % 60)
    return "%ds" % eta


def _on_terminal() -> bool:
    return bool(getattr(sys.stdout, "isatty", lambda: False)())


class Progbar:
    """A progress bar over ``target`` steps (None if unknown).

    Args:
        target: int, the total number of steps expected, or None if unknown.
        width: int, the bar's width in characters (default 20).
        verbose: 0 (silent), 1 (the bar, redrawn in place) or 2 (one line at the end)
            (default 1).
        interval: float, the least number of seconds between redraws (default 0.05).
        stateful_metrics: names of metrics shown as given rather than averaged over
            steps (not with ``stateless_metrics``).
        stateless_metrics: names of the only metrics averaged over steps; the others
            are shown as given (not with ``stateful_metrics``).
        unit_name: the step's name in the time per step (default ``"step"``).

    Raises:
        ValueError: both metric lists given, or ``verbose`` not 0, 1 or 2.

    Example:

    >>> import lamina as keras
    >>> bar = keras.utils.Progbar(3, verbose=0)
    >>> for step in range(3):
    ...     bar.update(step + 1, values=[("loss", 0.5)])
    """

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
        if self.verbose == 1:
            if now - self._last_update < self.interval and not finalize:
                return
            if _on_terminal():
                self._draw(current, now, per_step, finalize)
            elif finalize:
                self._write(self._line(current, now, per_step, finalize, color=False)[0]
                            + "\n")
        elif self.verbose == 2 and finalize and self.target:
            digits = int(math.log10(self.target)) + 1
            self._write(f"{current:{digits}d}/{self.target} - {now - self._start:.0f}s -"
                        f"{format_time(per_step, self.unit_name)}"
                        f"{self._metrics(signed=True)}\n")
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

    def _line(self, current, now, per_step, finalize, color: bool) -> tuple[str, int]:
        """The bar's line, and how many of its characters are control codes."""
        bold, green, grey, reset = (BOLD, GREEN, GREY, RESET) if color else ("",) * 4
        codes = 0
        if self.target is not None and self.target > 0:
            digits = int(math.log10(self.target)) + 1
            done = int(self.width * (current / self.target))
            bar = f"{bold}{current:{digits}d}/{self.target}{reset} "
            if done > 0:
                bar += f"{green}{'━' * done}{reset}"
                codes += 9
            bar += f"{grey}{'━' * (self.width - done)}{reset}"
            codes += 17
        else:
            bar = "%7d/Unknown" % current
        if self.target is not None and self.target > 0 and not finalize:
            info = f" {bold}{format_eta(per_step * (self.target - current))}{reset}"
        else:
            info = f" {bold}{now - self._start:.0f}s{reset}"
        codes += 8
        info += format_time(per_step, self.unit_name) + self._metrics()
        return bar + info, (codes if color else 0)

    def _draw(self, current, now, per_step, finalize) -> None:
        """Keras 3's bytes: back over the previous line, the new one, blanks over what is
        left of the old one."""
        line, codes = self._line(current, now, per_step, finalize, color=True)
        width = len(line) - codes
        text = "\b" * self._prev_width + "\r" + line
        if self._prev_width > width:
            text += " " * (self._prev_width - width)
        self._write(text + ("\n" if finalize else ""))
        self._prev_width = width

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
