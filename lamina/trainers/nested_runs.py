"""``fit`` / ``evaluate`` called while another one runs (from a callback) as an
independent run: the outer run gets back its metric states, ``stop_training`` flag and
``model.history`` when the inner one returns, so its own logs and History stay its own."""
from __future__ import annotations

import contextlib

_MISSING = object()


@contextlib.contextmanager
def independent_run(model):
    depth = model.__dict__.get("_running_loops", 0)
    model.__dict__["_running_loops"] = depth + 1
    saved = _save(model) if depth else None
    try:
        yield
    finally:
        model.__dict__["_running_loops"] = depth
        if saved is not None:
            _restore(model, saved)


def _save(model):
    states = [(v, v.numpy()) for metric in model.metrics for v in metric.variables]
    return (model.__dict__.get("stop_training", _MISSING),
            model.__dict__.get("history", _MISSING), states)


def _restore(model, saved) -> None:
    stop_training, history, states = saved
    for name, value in (("stop_training", stop_training), ("history", history)):
        if value is _MISSING:
            model.__dict__.pop(name, None)
        else:
            model.__dict__[name] = value
    for variable, value in states:
        variable.assign(value)
