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

from .. import ops
from ..core.tensor import Tensor
from ..core.variable import Variable
from ..core import mode
from ..core.symbolic import SymbolicTensor


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

    def read_inputs(self, inputs: tuple) -> tuple:
        """An op's inputs with each Variable replaced by its symbolic value (core/mode
        calls this for every op applied while this trace is recorded)."""
        if not any(isinstance(x, Variable) for x in inputs):
            return inputs
        return tuple(self.read(x) if isinstance(x, Variable) else x for x in inputs)

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


# "Are we tracing?" is core/mode's question: the stack of traces lives there.
active = mode.active_trace
suspended = mode.trace_suspended      # run eagerly inside a trace (creating variables)
tracing_into = mode.tracing_into


def runs_for_real(x) -> bool:
    """True when an op on ``x`` computes something that will run: ``x`` is concrete, or a
    graph is being traced. False for shape-only symbolic calls (functional-API building)."""
    return isinstance(x, Tensor) or active() is not None
