"""``plot_history``: training curves from ``fit``'s History in one figure.

One panel per quantity (loss first, then every metric in the order ``fit`` logged
them); each panel draws the training value and its ``val_`` counterpart against the
epoch. Several runs (a dict of name -> History) share the panels for comparison. Drawn
with matplotlib, an optional dependency (``pip install lamina[plots]``), on a figure
that never opens a window.
"""
from __future__ import annotations

import math
import os

from .optional_import import import_optional

__all__ = ["plot_history"]

FILE_FORMATS = ("png", "svg", "pdf")
COLUMNS = 3


def _logs(history, what="history"):
    """(epochs, {key: values}) of a History, a ``history.history`` dict."""
    logs = getattr(history, "history", history)
    if not isinstance(logs, dict) or not all(isinstance(v, (list, tuple)) for v in
                                             logs.values()):
        raise TypeError(f"plot_history: {what} must be a History (what fit returns) or "
                        f"its .history dict of per-epoch lists; received "
                        f"{type(history).__name__}")
    epochs = list(getattr(history, "epoch", None) or [])
    longest = max((len(v) for v in logs.values()), default=0)
    if len(epochs) != longest:
        epochs = list(range(longest))
    return [e + 1 for e in epochs], logs


def _runs(history):
    """{run name: (epochs, logs)}; one run is named ''."""
    if isinstance(history, dict) and history and all(
            hasattr(v, "history") or isinstance(v, dict) for v in history.values()):
        return {str(name): _logs(run, f"run {name!r}") for name, run in history.items()}
    return {"": _logs(history)}


def _panels(runs, metrics):
    """The quantities to draw: loss first, then metrics in logged order, no val_ keys."""
    keys = []
    for _, logs in runs.values():
        for key in logs:
            base = key[4:] if key.startswith("val_") else key
            if base not in keys:
                keys.append(base)
    keys.sort(key=lambda k: k != "loss")          # stable: loss first, others as logged
    if metrics is not None:
        missing = [m for m in metrics if m not in keys]
        if missing:
            raise ValueError(f"plot_history: argument 'metrics' names {missing}, which the "
                             f"history does not have; it has {keys}")
        keys = list(metrics)
    if not keys:
        raise ValueError("plot_history: the history is empty (fit ran no epoch)")
    return keys


def plot_history(history, to_file="history.png", metrics=None, title=None, dpi=100):
    """Draw ``history`` (``model.fit(...)``'s History, its ``.history`` dict, or a dict
    of run name -> History to compare runs) and save it to ``to_file`` (``.png``,
    ``.svg`` or ``.pdf``; ``None`` saves nothing). ``metrics`` picks and orders the
    panels (default: loss, then every metric). Returns the matplotlib Figure."""
    figure_module = import_optional("matplotlib.figure", "plots", "plot_history")
    if to_file is not None:
        suffix = os.path.splitext(str(to_file))[1][1:].lower()
        if suffix not in FILE_FORMATS:
            raise ValueError(f"plot_history: argument 'to_file' must end in .png, .svg or "
                             f".pdf; received {to_file!r}")
    runs = _runs(history)
    keys = _panels(runs, metrics)
    columns = min(COLUMNS, len(keys))
    rows = math.ceil(len(keys) / columns)
    figure = figure_module.Figure(figsize=(4.6 * columns, 3.4 * rows), dpi=dpi,
                                  layout="constrained")
    axes = figure.subplots(rows, columns, squeeze=False).ravel()
    colors = [f"C{i}" for i in range(10)]
    for ax, key in zip(axes, keys):
        for i, (name, (epochs, logs)) in enumerate(runs.items()):
            color = colors[i % len(colors)]
            prefix = f"{name} " if name else ""
            for log_key, label, style in ((key, "train", "-"), ("val_" + key, "validation",
                                                                "--")):
                values = logs.get(log_key)
                if values:
                    ax.plot(epochs[:len(values)], [float(v) for v in values], style,
                            color=color if name else ("C0" if label == "train" else "C1"),
                            marker="o", markersize=3, label=prefix + label)
        ax.set_title(key.replace("_", " "))
        ax.set_xlabel("epoch")
        ax.grid(True, alpha=0.3)
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.legend(fontsize="small")
    for ax in axes[len(keys):]:
        ax.set_visible(False)
    if title:
        figure.suptitle(title)
    if to_file is not None:
        figure.savefig(str(to_file))
    return figure
