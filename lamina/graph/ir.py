"""The graph of a traced function: SSA values are symbolic tensors, nodes are op
applications (``lamina/core/symbolic.py``), plus the variables it reads and writes.

``Graph.nodes`` is a topological order of exactly the nodes that the outputs and the
variable updates need: building it prunes everything else. Passes rewrite ``nodes`` (and
the values ``outputs``/``updates`` point at) and call :meth:`Graph.reorder` to prune and
sort again.
"""
from __future__ import annotations

from .. import tree
from ..core.tensor import TensorBase
from ..core.symbolic import SymbolicTensor


class Graph:
    def __init__(self, inputs, outputs, variables, updates, name: str = "graph"):
        self.name = name
        self.inputs = list(inputs)                  # SymbolicTensors fed at every call
        self.outputs = outputs                      # structure of tensors / Python values
        self.variables = list(variables)            # (Variable, placeholder) read
        self.updates = list(updates)                # (Variable, new value) written
        self.nodes: list = []
        self.reorder()

    @property
    def flat_outputs(self) -> list:
        return tree.flatten(self.outputs)

    def roots(self) -> list:
        return [o for o in self.flat_outputs if isinstance(o, SymbolicTensor)] + \
            [value for _, value in self.updates if isinstance(value, SymbolicTensor)]

    def reorder(self) -> None:
        """Prune nodes no output or update needs; sort the rest topologically."""
        # Passes call this after every rewrite, on graphs of tens of thousands of nodes
        # (a deep model's training step): the stack holds nodes, not their tensors.
        order, done = [], set()
        for root in self.roots():
            stack = [(root.node, False)]
            while stack:
                node, expanded = stack.pop()
                if node is None:
                    continue
                key = id(node)
                if key in done:
                    continue
                if expanded:
                    done.add(key)
                    order.append(node)
                    continue
                stack.append((node, True))
                for x in node.inputs:
                    if isinstance(x, SymbolicTensor):
                        parent = x.node
                        if parent is not None and id(parent) not in done:
                            stack.append((parent, False))
        self.nodes = order
        used = {id(x) for node in order for x in node.inputs} | {id(r) for r in self.roots()}
        self.variables = [(v, p) for v, p in self.variables if id(p) in used]

    def consumers(self) -> dict[int, list]:
        """id(tensor) -> the nodes that read it."""
        readers: dict[int, list] = {}
        for node in self.nodes:
            for x in node.inputs:
                if isinstance(x, TensorBase):
                    readers.setdefault(id(x), []).append(node)
        return readers

    def __repr__(self) -> str:
        return (f"<Graph {self.name}: {len(self.inputs)} inputs, {len(self.nodes)} nodes, "
                f"{len(self.variables)} variables read, {len(self.updates)} updates>")
