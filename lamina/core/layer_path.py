"""The names of the layers whose ``call`` is running on this thread, outermost first.

``lamina.layers.call_context`` pushes and pops them (``layer_call``, ``calling_layer``);
``symbolic_apply`` reads :func:`current_layer_path` so every traced node records the layer
it came from (error messages and ``to_dot`` name it). The stack lives here, below ``ops``,
so the symbolic layer never imports ``layers``.

The depth of shape traces (``call_context.tracing()``: a layer's ``compute_output_spec``,
a subclassed model's ``build``) lives here too: :func:`running_layer_code` tells
``ops.shape`` that layer code runs on symbolic tensors, where Keras's backends give a
symbolic size for an unknown batch (ours: a ``DynamicDim``), while on a functional-API
tensor outside any call Keras gives None.
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


def scope_names() -> list:
    """This thread's stack of name scopes (``keras.name_scope``, a layer's ``build``),
    outermost first (created on first use): a new Variable's path is prefixed with them,
    as in Keras, and ``lamina.layers.call_context`` pushes and pops them."""
    names = getattr(_state, "scope", None)
    if names is None:
        names = _state.scope = []
    return names


def current_layer_path() -> str | None:
    """``"outer/inner"`` for the layer calls running now (None outside any layer)."""
    names = getattr(_state, "layers", None)
    return "/".join(names) if names else None


def tracing_depth() -> int:
    """How many shape traces (``call_context.tracing()``) are open on this thread."""
    return getattr(_state, "tracing", 0)


def enter_tracing() -> None:
    _state.tracing = tracing_depth() + 1


def leave_tracing() -> None:
    _state.tracing = tracing_depth() - 1


def running_layer_code() -> bool:
    """True while a layer's ``call`` runs on symbolic tensors on this thread (functional
    building, graph tracing) or a shape trace is open."""
    return bool(getattr(_state, "layers", None)) or tracing_depth() > 0
