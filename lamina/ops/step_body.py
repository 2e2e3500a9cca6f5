"""The step sub-graph of a scan (``lamina/ops/step_loop.py``): capturing a traced step (it runs
through ``lamina/ops/step_program.py``).

A step is traced once on placeholders (the slices of the sequences at one time step, the
carries); the nodes that depend on them form the *body*. Symbolic values from outside the
step that the body reads (a cell's weights, read as the trace's variable placeholders, and
loop-invariant values computed from them) are *captured*: each gets a placeholder of its own
inside the body and becomes an input of the scan node, so the outer graph's autodiff sees
them and produces their gradients, and the optimizer updates the variables behind them.
"""
from __future__ import annotations

from ..core.symbolic import Node, SymbolicTensor
from ..core.op import OP_REGISTRY
from .step_program import Program, backward_program


class StepBody:
    """One time step as a self-contained sub-graph.

    ``inputs`` are placeholders: ``n_seq`` sequence slices, ``n_carry`` carries, then
    constants (given or captured); ``outputs`` are the ``n_carry`` new carries, then the
    per-step outputs that a scan stacks over time; ``nodes`` are the step's nodes in
    topological order.
    """

    def __init__(self, inputs, outputs, nodes, n_seq: int, n_carry: int):
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.nodes = list(nodes)
        self.n_seq, self.n_carry = n_seq, n_carry
        self.n_const = len(self.inputs) - n_seq - n_carry
        self.n_ys = len(self.outputs) - n_carry
        self._forward = None
        self._backward: dict = {}

    def __repr__(self) -> str:
        return (f"<StepBody {len(self.nodes)} nodes: {self.n_seq} sequences, {self.n_carry} "
                f"carries, {self.n_const} constants, {self.n_ys} outputs>")

    @property
    def forward(self) -> "Program":
        if self._forward is None:
            self._forward = Program(self.nodes, self.inputs, self.outputs)
        return self._forward

    def backward(self, wrt: tuple) -> tuple["Program", list]:
        """The vector-Jacobian program of one step for the gradients of the inputs numbered
        in ``wrt`` (the carries' always: they flow back through time), built on first use.
        Its inputs are one cotangent per output, its outputs one gradient per input (None
        where there is none). It extends the forward program's slots and reads forward
        values; it is returned with the slots of those values that a forward run must keep
        (the sequences' slices and the constants are the scan's inputs: not among them)."""
        key = tuple(wrt)
        if key not in self._backward:
            self._backward[key] = backward_program(self, key)
        return self._backward[key]

    def saved_specs(self, wrt: tuple) -> list:
        """(shape, dtype) of each value :meth:`backward` keeps per time step."""
        _, kept = self.backward(wrt)
        tensors = self.forward.tensors
        return [(tuple(tensors[i].shape), tensors[i].dtype) for i in kept]


def capture_step(sequences, carries, new_carries, outputs, constants=()):
    """The body of a step traced on the placeholders ``sequences``, ``carries`` (and given
    ``constants``) that produced ``new_carries`` and ``outputs``; returns ``(body, captured)``
    where ``captured`` are the outer values the body reads (pass them to the scan after the
    given constants), or None when the step cannot repeat as one node: it has a stateful
    (random) op. The step's nodes are rewired to read the captured values' placeholders."""
    placeholders = [*sequences, *carries, *constants]
    results = [*new_carries, *outputs]
    nodes, captured = _split(results, placeholders)
    if any(node.op.stateful for node in nodes):
        return None
    inner = {id(x): SymbolicTensor(x.shape, x.dtype, name=f"captured_{i}")
             for i, x in enumerate(captured)}
    for node in nodes:
        node.inputs = tuple(inner.get(id(x), x) for x in node.inputs)
    results = [inner.get(id(r), r) for r in results]
    body = StepBody(placeholders + [inner[id(x)] for x in captured], results, nodes,
                    len(sequences), len(carries))
    return body, captured


def _split(results, placeholders):
    """The nodes that depend on a placeholder (topological order) and the outer symbolic
    values they read. Nodes reached that depend on no placeholder are loop-invariant: they
    stay outside, computed once."""
    inner = {id(p) for p in placeholders}
    order, seen = [], set()
    stack = [(r.node, False) for r in results if isinstance(r, SymbolicTensor) and
             r.node is not None and id(r) not in inner]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            if any(id(x) in inner for x in node.inputs if isinstance(x, SymbolicTensor)):
                inner.update(id(o) for o in node.outputs)
                order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for x in node.inputs:
            if isinstance(x, SymbolicTensor) and x.node is not None and id(x) not in inner \
                    and id(x.node) not in seen:
                stack.append((x.node, False))
    captured, known = [], set()
    reads = [x for node in order for x in node.inputs] + list(results)
    for x in reads:
        if isinstance(x, SymbolicTensor) and id(x) not in inner and id(x) not in known:
            known.add(id(x))
            captured.append(x)
    return order, captured


def bind(placeholder: SymbolicTensor, value) -> None:
    """Make ``placeholder`` an ordinary value of the outer graph equal to ``value`` (through
    an identity reshape node), so a step traced on it becomes an unrolled step there."""
    node = Node(OP_REGISTRY["reshape"], (value,), {"shape": tuple(placeholder.shape)})
    node.outputs = (placeholder,)
    placeholder.node, placeholder.index = node, 0
