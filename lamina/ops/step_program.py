"""Running a scan's step (``lamina/ops/step_body.py``): its forward and its
vector-Jacobian product as flat lists of pre-bound kernel calls over numbered slots, as the
graph executor runs a whole graph (no graph objects, no tape, no spec checks per step)."""
from __future__ import annotations

from ..core.tensor import Tensor, TensorBase
from ..dtypes import is_float
from ..core import mode
from ..core.symbolic import SymbolicTensor



class Program:
    """Pre-bound kernel calls over numbered slots, as the graph executor's plan; it may
    extend another program's slots (a backward step reads its forward step's values)."""

    def __init__(self, nodes, inputs, outputs, extends: "Program | None" = None):
        self.index = dict(extends.index) if extends is not None else {}
        self.template = list(extends.template) if extends is not None else []
        self.tensors = list(extends.tensors) if extends is not None else []   # per slot
        self.input_slots = [self._slot(x) for x in inputs]
        self.steps = []
        for node in nodes:
            ins = tuple(self._slot(x) if isinstance(x, TensorBase) else self._literal(x)
                        for x in node.inputs)
            outs = tuple(self._slot(o) for o in node.outputs)
            self.steps.append((node.op.forward, ins, outs, node.attrs, node.several))
        self.output_slots = [self._slot(o) if isinstance(o, TensorBase) else None
                             for o in outputs]

    def _slot(self, tensor) -> int:
        key = id(tensor)
        if key not in self.index:
            self.index[key] = len(self.template)
            self.template.append(tensor.data if isinstance(tensor, Tensor) else None)
            self.tensors.append(tensor)
        return self.index[key]

    def _literal(self, value) -> int:
        self.template.append(value)
        self.tensors.append(None)
        return len(self.template) - 1

    def run(self, backend, slots: list) -> list:
        for forward, ins, outs, attrs, several in self.steps:
            result = forward(backend, *[slots[i] for i in ins], **attrs)
            if several:
                for o, value in zip(outs, result):
                    slots[o] = value
            else:
                slots[outs[0]] = result
        return [None if i is None else slots[i] for i in self.output_slots]

    def __call__(self, backend, arrays) -> tuple[list, list]:
        """(outputs, all slots) of one run on ``arrays`` (one per input)."""
        slots = list(self.template)
        for i, array in zip(self.input_slots, arrays):
            slots[i] = array
        return self.run(backend, slots), slots


def backward_program(body, wrt: tuple):
    """The vector-Jacobian program of ``body`` (a StepBody) for the inputs in ``wrt`` and
    the carries, and the forward slots it reads that a forward run must keep."""
    first_const = body.n_seq + body.n_carry
    wanted = set(wrt) | set(range(body.n_seq, first_const))
    sources = [x for i, x in enumerate(body.inputs) if i in wanted and is_float(x.dtype)]
    cotangents = [SymbolicTensor(o.shape, o.dtype, name=f"cotangent_{i}")
                  for i, o in enumerate(body.outputs)]
    pairs = [(o, c) for o, c in zip(body.outputs, cotangents)
             if isinstance(o, SymbolicTensor) and is_float(o.dtype)]
    # reverse mode over symbolic nodes is the compiler's (lamina/graph registers it)
    found = mode.engines.gradients([o for o, _ in pairs], sources, [c for _, c in pairs]) \
        if pairs and sources else [None] * len(sources)
    by_input = {id(x): g for x, g in zip(sources, found)}
    grads = [by_input.get(id(x)) for x in body.inputs]
    forward = body.forward
    in_forward = {id(node) for node in body.nodes}
    nodes = [n for n in _topological(grads) if id(n) not in in_forward]
    program = Program(nodes, cotangents, grads, extends=forward)
    fed = set(forward.input_slots[:body.n_seq]) | set(forward.input_slots[first_const:])
    computed = {i for i, t in enumerate(forward.tensors) if isinstance(t, SymbolicTensor)}
    computed -= fed
    reads = {i for _, ins, _, _, _ in program.steps for i in ins}
    reads.update(i for i in program.output_slots if i is not None)
    return program, sorted(reads & computed)


def _topological(tensors) -> list:
    order, done = [], set()
    stack = [(t.node, False) for t in tensors if isinstance(t, SymbolicTensor) and
             t.node is not None]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in done:
            continue
        done.add(id(node))
        stack.append((node, True))
        for x in node.inputs:
            if isinstance(x, SymbolicTensor) and x.node is not None and id(x.node) not in done:
                stack.append((x.node, False))
    return order
