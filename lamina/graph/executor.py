"""A traced function as a flat plan: pre-bound kernel calls over numbered slots.

Running a plan walks a Python list once: no graph objects, no tape, no spec checks. Slots
hold the step's inputs, the variables' buffers (bound at every call, so in-place updates
are seen), constants captured while tracing, and every node's outputs. After the last
kernel, the recorded updates are written into the variables in place.
"""
from __future__ import annotations

from .. import tree
from ..autograd.tensor import Tensor, TensorBase
from .ir import Graph


class Plan:
    """An executable :class:`~lamina.graph.ir.Graph`."""

    def __init__(self, graph: Graph, backend):
        self.graph = graph
        self.backend = backend
        index: dict[int, int] = {}
        template: list = []

        def slot(tensor) -> int:
            key = id(tensor)
            if key not in index:
                index[key] = len(template)
                template.append(tensor.data if isinstance(tensor, Tensor) else None)
            return index[key]
        self.input_slots = [slot(x) for x in graph.inputs]
        self.variable_slots = [(variable, slot(placeholder))
                               for variable, placeholder in graph.variables]
        self.steps = []
        for node in graph.nodes:
            ins = tuple(slot(x) if isinstance(x, TensorBase) else _literal(template, x)
                        for x in node.inputs)
            outs = tuple(slot(o) for o in node.outputs)
            self.steps.append((node.op.forward, ins, outs, node.attrs, len(node.outputs) > 1))
        self.output_slots = [slot(o) if isinstance(o, TensorBase) else None
                             for o in graph.flat_outputs]
        self.update_slots = [(variable, slot(value)) for variable, value in graph.updates]
        self.template = template

    def __call__(self, arrays: list):
        slots = list(self.template)
        for i, array in zip(self.input_slots, arrays):
            slots[i] = array
        for variable, i in self.variable_slots:
            slots[i] = variable.data
        backend = self.backend
        for forward, ins, outs, attrs, several in self.steps:
            result = forward(backend, *[slots[i] for i in ins], **attrs)
            if several:
                for o, value in zip(outs, result):
                    slots[o] = value
            else:
                slots[outs[0]] = result
        written = {id(variable.data) for variable, _ in self.update_slots}
        results = [slots[i] if i is not None else value
                   for i, value in zip(self.output_slots, self.graph.flat_outputs)]
        results = [_detach(r, written) for r in results]
        pending = [(variable, _detach(slots[i], written)) for variable, i in self.update_slots]
        for variable, value in pending:
            backend.copy_(variable.data, value)
            variable._version += 1
        return results


def _literal(template: list, value) -> int:
    template.append(value)
    return len(template) - 1


def _detach(value, written: set):
    """A copy of ``value`` when it is (a view of) a buffer about to be overwritten."""
    if id(value) in written or id(getattr(value, "base", None)) in written:
        return value.copy()
    return value


def pack_results(graph: Graph, backend, results: list):
    """The traced function's output structure, arrays wrapped as Tensors."""
    leaves = [Tensor._wrap(r, backend) if isinstance(o, TensorBase) else r
              for o, r in zip(graph.flat_outputs, results)]
    return tree.pack_sequence_as(graph.outputs, leaves)
