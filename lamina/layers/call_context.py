"""State shared by nested layer calls: the inherited ``training`` flag and the weight-path scope.

``training=None`` in a layer call means "inherit from the caller": the outermost call that
sets it (``model(x, training=True)``, ``fit``) decides for every layer inside it.
``tracing()`` marks a graph trace: layers then run ``call`` directly on symbolic tensors,
recording op nodes, instead of recording functional-API layer nodes.
"""
from __future__ import annotations

import contextlib
import threading

_state = threading.local()


def _get(name, default):
    return getattr(_state, name, default)


def current_training():
    stack = _get("training", [])
    return stack[-1] if stack else None


def depth() -> int:
    return len(_get("training", []))


@contextlib.contextmanager
def layer_call(training):
    stack = _get("training", None)
    if stack is None:
        stack = _state.training = []
    stack.append(training)
    try:
        yield
    finally:
        stack.pop()


def is_tracing() -> bool:
    return _get("tracing", 0) > 0


@contextlib.contextmanager
def tracing():
    _state.tracing = _get("tracing", 0) + 1
    try:
        yield
    finally:
        _state.tracing -= 1


def current_scope() -> str | None:
    scope = _get("scope", [])
    return scope[-1] if scope else None


def weight_path(name: str) -> str:
    return "/".join([*_get("scope", []), name])


@contextlib.contextmanager
def name_scope(name: str):
    scope = _get("scope", None)
    if scope is None:
        scope = _state.scope = []
    scope.append(name)
    try:
        yield
    finally:
        scope.pop()
