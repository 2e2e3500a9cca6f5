"""Tracing: run ordinary Lamina code (layers, losses, optimizers) on spec-only tensors and
record what it does as a graph.

While a :class:`Trace` is active:

- every op that reads a Variable reads the variable's *symbolic value* instead (a graph
  input standing for the value at the start of the step, or the value last assigned in
  this trace), so the graph reads variables when it runs, never when it was traced;
- ``variable.assign*`` records an *update* (the variable, the new symbolic value): the
  compiled step writes it into the variable in place after everything else has run, so an
  update always comes after every read of the old value; a read after the assign sees the
  new value as a leaf (no gradient flows back into how it was computed);
- ``GradientTape.gradient`` differentiates the recorded graph (``lamina/graph/autodiff.py``);
- creating a Variable runs eagerly (initial values are real numbers).

Python code runs once per trace, as in ``tf.function``: Python-side effects (counters,
prints) happen when tracing, not at every step.
"""
from __future__ import annotations

import contextlib
import threading

from .. import ops
from ..autograd.tensor import Tensor
from ..autograd.variable import Variable
from ..core.symbolic import SymbolicTensor
from ..ops import op as op_module

_state = threading.local()


class Trace:
    """The variables read and written by one traced function."""

    def __init__(self):
        self.placeholders: dict[int, tuple] = {}    # id(var) -> (var, SymbolicTensor)
        self.current: dict[int, SymbolicTensor] = {}
        self.updates: dict[int, tuple] = {}          # id(var) -> (var, SymbolicTensor)

    def read(self, variable) -> SymbolicTensor:
        key = id(variable)
        if key in self.current:
            return self.current[key]
        if key not in self.placeholders:
            placeholder = SymbolicTensor(variable.shape, variable.dtype, name=variable.path)
            self.placeholders[key] = (variable, placeholder)
        return self.placeholders[key][1]

    def assign(self, variable, value) -> None:
        if not isinstance(value, SymbolicTensor):
            value = ops.convert_to_tensor(value, dtype=variable.dtype)
            value = ops.add(ops.multiply(self.read(variable), 0), value)   # keep it symbolic
        if value.dtype != variable.dtype:
            value = ops.cast(value, variable.dtype)
        if tuple(value.shape) != tuple(variable.shape):
            value = ops.broadcast_to(value, variable.shape)
        # A later read of the variable is a leaf, as in eager mode (the tape never looks
        # behind a Variable): without the stop_gradient, a second GradientTape in the same
        # step (a GAN's generator update after the discriminator's) would differentiate
        # through the first optimizer's update.
        self.current[id(variable)] = ops.stop_gradient(value)
        self.updates[id(variable)] = (variable, value)


def active() -> Trace | None:
    """The trace being recorded on this thread, or None."""
    stack = getattr(_state, "stack", None)
    return stack[-1] if stack else None


def runs_for_real(x) -> bool:
    """True when an op on ``x`` computes something that will run: ``x`` is concrete, or a
    graph is being traced. False for shape-only symbolic calls (functional-API building)."""
    return isinstance(x, Tensor) or active() is not None


def _read_variables(inputs: tuple) -> tuple:
    trace = active()
    if trace is None:
        return inputs
    if not any(isinstance(x, Variable) for x in inputs):
        return inputs
    return tuple(trace.read(x) if isinstance(x, Variable) else x for x in inputs)


@contextlib.contextmanager
def tracing_into(trace: Trace):
    stack = getattr(_state, "stack", None)
    if stack is None:
        stack = _state.stack = []
    stack.append(trace)
    hook = op_module.trace_hook                 # per thread, like the stack
    previous = hook.inputs
    hook.inputs = _read_variables
    try:
        yield trace
    finally:
        stack.pop()
        hook.inputs = previous


@contextlib.contextmanager
def suspended():
    """Run eagerly inside a trace (creating variables, for example)."""
    stack = getattr(_state, "stack", None)
    saved = list(stack) if stack else []
    if stack:
        stack.clear()
    try:
        yield
    finally:
        if stack is not None:
            stack.extend(saved)
