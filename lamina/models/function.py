"""Keras 3's ``keras.Function``: the computation from symbolic inputs to symbolic outputs as
a plain callable, without the Model around it (no weights tracking, compile or fit). It
runs the same graph a functional ``Model(inputs, outputs)`` runs."""
from __future__ import annotations

from .. import tree
from ..core.symbolic import SymbolicTensor
from .functional import Functional


class Function:
    """``Function(inputs, outputs, name=None)``; ``function(x)`` or ``function.call(x)``
    evaluates ``outputs`` (same nesting) for concrete (or symbolic) ``x`` of the inputs'
    structure. ``operations`` lists the layers the graph calls."""

    def __init__(self, inputs, outputs, name=None):
        self._graph = Functional(inputs, outputs, name=name)
        self.name = self._graph.name

    @property
    def inputs(self):
        return self._graph.inputs

    @property
    def outputs(self):
        return self._graph.outputs

    @property
    def operations(self):
        return list(self._graph.layers)

    def call(self, inputs):
        return self._graph(inputs)

    def __call__(self, inputs):
        return self.call(inputs)

    def compute_output_spec(self, inputs):
        """The outputs' shapes and dtypes (symbolic tensors) for inputs of these shapes."""
        symbols = tree.map_structure(
            lambda x: x if isinstance(x, SymbolicTensor) else SymbolicTensor(
                tuple(x.shape), str(x.dtype)), inputs)
        return self._graph(symbols)

    def __repr__(self):
        return f"<Function name={self.name!r} inputs={len(self.inputs)} " \
               f"outputs={len(self.outputs)}>"
