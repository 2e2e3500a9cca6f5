"""When a model's compiled steps are out of date.

A compiled train/test/predict step is a trace of the model as it was: its layers, which of
their weights are trainable, its optimizer and its compiled loss. Anything that changes
one of these (``Sequential.add``/``pop``, a ``trainable`` flag anywhere, new weights,
``compile``) calls :func:`changed`, which bumps one process-wide counter. A compiled step
compares the counter with the one it last saw (one integer per batch) and only when it
moved computes the model's :func:`fingerprint`; a different fingerprint means "trace
again". A global counter instead of parent links because a layer may belong to several
models and does not know them.
"""
from __future__ import annotations

_version = 0


def changed() -> None:
    """Record that some layer or model changed structure."""
    global _version
    _version += 1


def version() -> int:
    return _version


def fingerprint(model) -> tuple:
    """What a compiled step of ``model`` depends on besides its input shapes: every
    layer (nested ones included) with its trainable flag, every weight with its own flag,
    the optimizer and the compiled loss and metrics."""
    layers, seen, stack = [], set(), [model]
    while stack:
        layer = stack.pop()
        if id(layer) in seen:
            continue
        seen.add(id(layer))
        layers.append((id(layer), layer.trainable))
        stack.extend(reversed(list(layer._sublayers())))
    weights = tuple((id(v), bool(v.trainable)) for v in model.weights)
    compiled = tuple(id(getattr(model, name, None)) for name in
                     ("optimizer", "_compile_loss", "_compile_metrics"))
    return tuple(layers), weights, compiled
