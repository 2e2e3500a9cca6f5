"""Reverse mode on the graph: the backward pass is more graph.

Each node's gradient comes from its op's ``gradient`` rule, the same rule the eager tape
uses; because the rules are written with ops, applying them to symbolic tensors records
the backward nodes. Only nodes on a path from a source to the target are differentiated,
so gradients nobody asked for (of data inputs, of labels) are never built.

A backward node records the layer of the node it differentiates, as
``"<layer path>/gradients"`` (errors and TensorBoard's Graphs tab group it under that
layer); the gradients of nodes traced outside any layer (loss code) record none.
"""
from __future__ import annotations

from .. import ops
from ..core.symbolic import SymbolicTensor, _node_counter
from ..errors import GradientError
from ..ops.reshaping import broadcast_like
from ..core.op import Context


def _nodes_between(targets, sources) -> list:
    """Nodes on a path from a source to a target, in topological order."""
    order, seen = [], set()
    stack = [(t, False) for t in targets if isinstance(t, SymbolicTensor)]
    while stack:
        tensor, expanded = stack.pop()
        node = tensor.node
        if node is None:
            continue
        if expanded:
            if id(node) not in seen:
                seen.add(id(node))
                order.append(node)
            continue
        if id(node) in seen:
            continue
        stack.append((tensor, True))
        for x in node.inputs:
            if isinstance(x, SymbolicTensor) and x.node is not None and id(x.node) not in seen:
                stack.append((x, False))
    order = _in_creation_order(order)
    depends = {id(s) for s in sources}
    relevant = []
    for node in order:
        if any(id(x) in depends for x in node.inputs):
            depends.update(id(o) for o in node.outputs)
            relevant.append(node)
    return relevant, depends


def _in_creation_order(order: list) -> list:
    """``order`` sorted by when each node was made, when that is still topological (it is
    for a trace: a node is made after its inputs' nodes; a rewrite may make one later).

    Walking the nodes backwards in the order the program ran them is what the eager tape
    does, so a value read by several ops receives their gradients in the tape's order:
    float addition is not associative, and another order rounds the sum differently
    (fuzzer seed 465: a sigmoid crossentropy's three terms, whose 1-ulp difference a
    batch normalization's backward amplified)."""
    ranked = sorted(order, key=lambda node: node.seq)
    position = {id(node): k for k, node in enumerate(ranked)}
    for k, node in enumerate(ranked):
        for x in node.inputs:
            producer = getattr(x, "node", None)
            if producer is not None and position.get(id(producer), -1) > k:
                return order
    return ranked


def gradients(targets, sources, seeds=None) -> list:
    """d(sum of targets)/d(each source) as symbolic tensors (None where unconnected)."""
    targets = list(targets)
    nodes, depends = _nodes_between(targets, sources)
    grads: dict[int, object] = {}
    for i, target in enumerate(targets):
        seed = seeds[i] if seeds is not None and seeds[i] is not None else ops.ones_like(target)
        _accumulate(grads, target, seed)
    for node in reversed(nodes):
        out_grads = [grads.get(id(o)) for o in node.outputs]
        if all(g is None for g in out_grads):
            continue
        if not node.op.differentiable:
            continue
        first = next(_node_counter)          # every node made below has a larger seq
        out_grads = [ops.zeros_like(o) if g is None else g
                     for o, g in zip(node.outputs, out_grads)]
        needs = tuple(isinstance(x, SymbolicTensor) and id(x) in depends for x in node.inputs)
        in_grads = node.op.gradient(Context(node.inputs, node.outputs, node.attrs, needs),
                                    *out_grads)
        if not isinstance(in_grads, (tuple, list)):
            in_grads = (in_grads,)
        if len(in_grads) != len(node.inputs):
            raise GradientError(f"op {node.op.name!r}: gradient returned {len(in_grads)} "
                                f"values for {len(node.inputs)} inputs")
        for x, g, need in zip(node.inputs, in_grads, needs):
            if need and g is not None:
                _accumulate(grads, x, g)
        if node.layer is not None:
            _record_layer([grads.get(id(x)) for x in node.inputs], first,
                          f"{node.layer}/gradients")
    return [grads.get(id(s)) for s in sources]


def _accumulate(grads: dict, tensor, g) -> None:
    key = id(tensor)
    if tuple(g.shape) != tuple(tensor.shape):
        g = broadcast_like(g, tensor)
    grads[key] = g if key not in grads else ops.add(grads[key], g)


def _record_layer(values, first: int, layer: str) -> None:
    """Give ``layer`` to the layerless nodes made since ``first`` that compute ``values``."""
    stack = [v for v in values if isinstance(v, SymbolicTensor)]
    while stack:
        node = stack.pop().node
        if node is None or node.seq < first or node.layer is not None:
            continue
        node.layer = layer
        stack.extend(x for x in node.inputs if isinstance(x, SymbolicTensor))
