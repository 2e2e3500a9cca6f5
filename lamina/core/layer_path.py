"""The names of the layers whose ``call`` is running on this thread, outermost first.

``lamina.layers.call_context`` pushes and pops them (``layer_call``, ``calling_layer``);
``symbolic_apply`` reads :func:`current_layer_path` so every traced node records the layer
it came from (error messages and ``to_dot`` name it). The stack lives here, below ``ops``,
so the symbolic layer never imports ``layers``.
"""
from __future__ import annotations

import threading

_state = threading.local()


def layer_names() -> list:
    """This thread's stack of running layer names (created on first use); callers push and
    pop it."""
    names = getattr(_state, "layers", None)
    if names is None:
        names = _state.layers = []
    return names


def current_layer_path() -> str | None:
    """``"outer/inner"`` for the layer calls running now (None outside any layer)."""
    names = getattr(_state, "layers", None)
    return "/".join(names) if names else None
