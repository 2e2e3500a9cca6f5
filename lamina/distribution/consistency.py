"""Detect, at the start of ``fit``, processes whose model or compile configuration
differs from process 0's (a wrong script on one host, a differing argument): the error
names the first differing entry instead of letting the gradient exchange hang or mix
mismatched buffers."""
from __future__ import annotations

import re

from .world import world

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_WHAT = "the comparison of the model and compile configs at the start of fit"


def _text(value) -> str:
    """``repr(value)`` without memory addresses (a function's differs per process)."""
    return _ADDRESS.sub("", repr(value))


def describe(model) -> dict:
    """A comparable summary: weight names, shapes and dtypes, and the compile config."""
    weights = [(getattr(v, "path", v.name), tuple(v.shape), str(v.dtype))
               for v in model.weights]
    compile_config = getattr(model, "_compile_config", {}) or {}
    return {"weights": weights,
            "compile": {k: _text(v) for k, v in sorted(compile_config.items())},
            "optimizer": _text(sorted(_optimizer_config(model).items()))}


def _optimizer_config(model) -> dict:
    optimizer = getattr(model, "optimizer", None)
    if optimizer is None:
        return {}
    try:
        return optimizer.get_config()
    except Exception:                      # a custom optimizer without a config
        return {"class": type(optimizer).__name__}


def first_difference(mine: dict, theirs: dict) -> str | None:
    for key in ("weights", "compile", "optimizer"):
        a, b = mine.get(key), theirs.get(key)
        if a == b:
            continue
        if key == "weights":
            if len(a) != len(b):
                return f"the model has {len(b)} weights on process 0 and {len(a)} here"
            for wa, wb in zip(a, b):
                if wa != wb:
                    return f"weight {wb} on process 0 is {wa} here"
        if key == "compile":
            for name in sorted(set(a) | set(b)):
                if a.get(name) != b.get(name):
                    return (f"compile argument '{name}' is {b.get(name)} on process 0 and "
                            f"{a.get(name)} here")
        return f"the optimizer config is {b} on process 0 and {a} here"
    return None


def check_same_everywhere(model) -> None:
    comm = world()
    mine = describe(model)
    reference = comm.broadcast_object(mine, root=0, what=_WHAT)
    difference = first_difference(mine, reference)
    differs = comm.allgather_object(difference, what=_WHAT)
    bad = [(rank, text) for rank, text in enumerate(differs) if text]
    if bad:
        rank, text = bad[0]
        raise ValueError(f"{model.name}: DataParallel processes disagree: on process "
                         f"{rank}, {text}. Every process must build and compile the same "
                         f"model (same script, same arguments)")


__all__ = ["check_same_everywhere", "describe", "first_difference"]
