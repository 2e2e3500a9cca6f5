"""Graph optimization passes, one per file, run in a fixed order by :func:`optimize`.

Each pass is a function ``graph -> graph`` that keeps the numbers the same and makes the
graph smaller or cheaper. ``optimize(graph, passes)`` runs the default pipeline, or the
given list of pass names (``[]`` for none), and records per-pass node counts in
``graph.history``.
"""
from __future__ import annotations

PIPELINE: list[tuple[str, object]] = []


def register(name: str):
    """Decorator adding a pass to the default pipeline (in import order)."""
    def decorate(fn):
        PIPELINE.append((name, fn))
        return fn
    return decorate


def optimize(graph, passes=None):
    chosen = PIPELINE if passes is None else [(n, f) for n, f in PIPELINE if n in passes]
    graph.history = [("traced", len(graph.nodes))]
    for name, fn in chosen:
        graph = fn(graph)
        graph.history.append((name, len(graph.nodes)))
    return graph


from . import simplify, constant_fold, cse  # noqa: E402,F401
from . import fold_batchnorm, fuse  # noqa: E402,F401
from . import fuse_elementwise  # noqa: E402,F401
from . import schedule_collectives  # noqa: E402,F401  (last: it orders, never rewrites)
