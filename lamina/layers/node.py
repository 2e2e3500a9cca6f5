"""Layer-call nodes: the functional API's graph, one node per call of a layer.

Calling a layer on symbolic tensors records a :class:`LayerNode` (the layer, the call's
arguments with their symbolic leaves, and fresh symbolic outputs). Each output carries
``history = (layer, node_index, output_index)``, the ``layer[node][tensor]`` of Keras's
summaries and configs. Ops applied between layers (``x + y``, ``x[:, 0]``) are op nodes
on the symbolic tensors themselves (``lamina/core/symbolic.py``).
"""
from __future__ import annotations

from .. import tree
from ..core.symbolic import SymbolicTensor


class LayerNode:
    __slots__ = ("layer", "args", "kwargs", "outputs", "index")

    def __init__(self, layer, args: tuple, kwargs: dict, outputs, index: int):
        self.layer = layer
        self.args = args
        self.kwargs = kwargs
        self.outputs = outputs
        self.index = index

    @property
    def input_tensors(self) -> list:
        return [x for x in tree.flatten((self.args, self.kwargs))
                if isinstance(x, SymbolicTensor)]

    @property
    def output_tensors(self) -> list:
        return tree.flatten(self.outputs)

    def __repr__(self) -> str:
        return f"<LayerNode {self.layer.name}[{self.index}]>"
