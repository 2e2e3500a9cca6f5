"""State shared by nested layer calls: the inherited ``training`` flag and the weight-path scope.

``training=None`` in a layer call means "inherit from the caller": the outermost call that
sets it (``model(x, training=True)``, ``fit``) decides for every layer inside it.
``tracing()`` marks a graph trace: layers then run ``call`` directly on symbolic tensors,
recording op nodes, instead of recording functional-API layer nodes.
``layer_call(training, name)`` and ``calling_layer(name)`` keep the names of the layers
whose ``call`` is running, so every graph node records the layer it came from (error
messages and ``to_dot`` name it); the stack itself is ``lamina/core/layer_path.py``, which
the symbolic layer reads without importing ``layers``.
"""
from __future__ import annotations

import contextlib
import threading

from ..core import layer_path as _layer_path
from ..core.layer_path import current_layer_path, layer_names as _layer_names  # noqa: F401

_state = threading.local()


def _get(name, default):
    return getattr(_state, name, default)


def current_training():
    stack = _get("training", [])
    return stack[-1] if stack else None


def depth() -> int:
    return len(_get("training", []))


@contextlib.contextmanager
def layer_call(training, name: str | None = None):
    """A layer's ``call`` runs inside: ``training`` is inherited by nested calls, and
    ``name`` (when given) is pushed on the stack that :func:`current_layer_path` reads."""
    stack = _get("training", None)
    if stack is None:
        stack = _state.training = []
    stack.append(training)
    names = _layer_names() if name is not None else None
    if names is not None:
        names.append(name)
    try:
        yield
    finally:
        stack.pop()
        if names is not None:
            names.pop()


def context_values() -> dict:
    """The call-context arguments (Keras's ``_register_call_context_args``) set by the
    layer calls enclosing this one: ``{name: value}``."""
    stack = _get("context_values", [])
    return stack[-1] if stack else {}


@contextlib.contextmanager
def context_args(values: dict):
    """Nested layer calls see ``values`` as the current call-context arguments."""
    stack = _get("context_values", None)
    if stack is None:
        stack = _state.context_values = []
    stack.append(values)
    try:
        yield
    finally:
        stack.pop()


def is_tracing() -> bool:
    return _layer_path.tracing_depth() > 0


@contextlib.contextmanager
def tracing():
    _layer_path.enter_tracing()          # kept in core: ops.shape asks it (layer_path.py)
    try:
        yield
    finally:
        _layer_path.leave_tracing()


def current_scope() -> str | None:
    scope = _layer_path.scope_names()
    return scope[-1] if scope else None


def weight_path(name: str) -> str:
    return "/".join([*_layer_path.scope_names(), name])


def scope_stack() -> list:
    """The current thread's list of scope names (what ``weight_path`` prefixes; kept in
    ``core/layer_path.py`` so a Variable made in a scope gets the prefix too)."""
    return _layer_path.scope_names()


@contextlib.contextmanager
def name_scope(name: str):
    scope = _layer_path.scope_names()
    scope.append(name)
    try:
        yield
    finally:
        scope.pop()


@contextlib.contextmanager
def calling_layer(name: str):
    """Nodes traced inside are attributed to layer ``name`` (nested under the current one)."""
    names = _layer_names()
    names.append(name)
    try:
        yield
    finally:
        names.pop()
