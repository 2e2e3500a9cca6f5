"""The execution mode, in one place: what runs an op now and what rewrites its inputs first.

An op (``lamina/core/op.py``) runs on symbolic tensors by recording a node
(``core/symbolic.py``) and on concrete ones through the eager engine, which lives above
core (``lamina/autograd``: kernels now, recorded on the tape). Before either, its inputs may
be rewritten by what is open on this thread, in this order:

1. a remat'd function's *reads* (``autograd/remat.py``) note the Variables it reads;
2. an *autocast* scope (``core/autocast.py``) casts float Variables to the compute dtype;
3. a *stateless* scope (``core/stateless_scope.py``) replaces Variables by its values;
4. a graph *trace* (``graph/trace.py``) replaces Variables by their symbolic values.

Each of those is an object with one method, pushed here while its ``with`` block runs; this
module owns the stacks and asks them, so no package above reaches down to fill a hook.

The packages above core register what core calls but cannot import (:func:`register`):
the eager engine and its tape, the ``lamina.ops`` module (the operators of tensors and
Variable's reads and writes call it), and graph autodiff (the tape differentiates what a
trace recorded).
"""
from __future__ import annotations

import contextlib
import threading

_state = threading.local()
_lock = threading.Lock()
# How many reads/autocast/stateless scopes are open in any thread: 0 skips the checks.
_open_scopes = 0


class _Engines:
    """What the packages above core registered (see :func:`register`)."""
    __slots__ = ("eager_apply", "tape", "ops", "gradients")

    def __init__(self):
        self.eager_apply = None    # lamina/autograd/eager.py: run an op now, on the tape
        self.tape = None           # lamina/autograd/tape.py's GradientTape (ops.jvp uses it)
        self.ops = None            # the lamina.ops module
        self.gradients = None      # lamina/graph/autodiff.py: gradients of a traced graph


engines = _Engines()


def register(**implementations) -> None:
    """Called once by the package that implements each: ``eager_apply=``, ``tape=``,
    ``ops=``, ``gradients=``. Registering a different one twice is a programming error."""
    for name, value in implementations.items():
        if name not in _Engines.__slots__:
            raise TypeError(f"mode.register: unknown engine {name!r}; expected one of "
                            f"{list(_Engines.__slots__)}")
        current = getattr(engines, name)
        if current is not None and current is not value:
            raise RuntimeError(f"mode.register: {name!r} is already registered ({current!r})")
        setattr(engines, name, value)


def ops():
    """The ``lamina.ops`` module, for code in core that runs ops on tensors."""
    return engines.ops


# --------------------------------------------------------------------------- scopes
def _stack(kind: str) -> list:
    stack = getattr(_state, kind, None)
    if stack is None:
        stack = []
        setattr(_state, kind, stack)
    return stack


_KINDS = ("reads", "autocast", "stateless")


def enter(kind: str, scope) -> None:
    """Open ``scope`` on this thread. ``kind``:

    - "reads": ``scope.note_inputs(inputs)`` sees every op's inputs first (remat);
    - "autocast": ``scope.cast_inputs(op, inputs)`` rewrites them (the innermost scope);
    - "stateless": ``scope.map_inputs(inputs)`` rewrites them (the innermost scope).
    """
    global _open_scopes
    if kind not in _KINDS:
        raise ValueError(f"mode.enter: argument 'kind' must be one of {_KINDS}; "
                         f"received {kind!r}")
    _stack(kind).append(scope)
    with _lock:
        _open_scopes += 1


def leave(kind: str, scope) -> None:
    """Close ``scope``, the innermost open one of ``kind`` on this thread."""
    global _open_scopes
    stack = _stack(kind)
    if not stack or stack[-1] is not scope:
        raise RuntimeError(f"mode.leave: the {kind} scope {scope!r} is not the innermost "
                           f"open one on this thread")
    stack.pop()
    with _lock:
        _open_scopes -= 1


def current(kind: str):
    """The innermost open scope of ``kind`` ("reads", "autocast", "stateless") on this
    thread, or None."""
    if not _open_scopes:            # the common case: nothing open anywhere
        return None
    stack = getattr(_state, kind, None)
    return stack[-1] if stack else None


def all_open(kind: str) -> tuple:
    """Every open scope of ``kind`` on this thread, outermost first."""
    return tuple(getattr(_state, kind, None) or ())


# --------------------------------------------------------------------------- tracing
def active_trace():
    """The graph trace being recorded on this thread, or None: "are we tracing?"."""
    stack = getattr(_state, "traces", None)
    return stack[-1] if stack else None


@contextlib.contextmanager
def tracing_into(trace):
    """Record into ``trace`` (``lamina.graph.trace.Trace``): ops read Variables through
    ``trace.read_inputs``."""
    stack = _stack("traces")
    stack.append(trace)
    try:
        yield trace
    finally:
        stack.pop()


@contextlib.contextmanager
def trace_suspended():
    """Run eagerly inside a trace (creating variables, for example)."""
    stack = getattr(_state, "traces", None)
    saved = list(stack) if stack else []
    if stack:
        stack.clear()
    try:
        yield
    finally:
        if stack is not None:
            stack.extend(saved)


def rewrite_inputs(op, inputs: tuple) -> tuple:
    """``inputs`` as the open scopes and trace of this thread want ``op`` to see them."""
    if _open_scopes:
        for reads in getattr(_state, "reads", None) or ():
            reads.note_inputs(inputs)
        scope = current("autocast")
        if scope is not None:
            inputs = scope.cast_inputs(op, inputs)
        scope = current("stateless")
        if scope is not None:
            inputs = scope.map_inputs(inputs)
    trace = active_trace()
    if trace is not None:
        inputs = trace.read_inputs(inputs)
    return inputs
