"""Common-subexpression elimination: nodes with the same op, the same attributes (compared
by value, tuples and dicts included) and the same inputs compute the same values, so all
but the first are dropped and their readers read the first one's outputs. Constant inputs
are compared by value (small ones; larger ones by identity); ``add`` and ``multiply`` match
with their inputs in either order. Stateful (random) ops are never merged: two dropout
draws stay two draws. One topological sweep suffices, since merging rewires the readers
before they are visited.
"""
from __future__ import annotations

from ...core.tensor import Tensor
from ..rewrite import Uses, attrs_key
from ...core.symbolic import SymbolicTensor
from . import register

COMMUTATIVE = ("add", "multiply")
CONSTANT_KEY_LIMIT = 4096      # constants with more elements are compared by identity


def _input_key(x):
    if isinstance(x, SymbolicTensor):
        return ("value", id(x))
    if isinstance(x, Tensor):
        if x.size > CONSTANT_KEY_LIMIT:
            return ("value", id(x))
        return ("constant", x.dtype, tuple(x.shape), x.numpy().tobytes())
    return ("literal", attrs_key(x))


def node_key(node):
    """What makes two nodes compute the same values; None when not comparable."""
    if node.op.stateful:
        return None
    try:
        inputs = [_input_key(x) for x in node.inputs]
        attrs = attrs_key(node.attrs)
    except TypeError:           # an unhashable attribute: leave the node alone
        return None
    if node.op.name in COMMUTATIVE and len(inputs) == 2:
        inputs.sort()
    return (id(node.op), attrs, tuple(inputs), len(node.outputs))


@register("cse")
def cse(graph):
    uses, first, merged = Uses(graph), {}, 0
    for node in list(graph.nodes):
        key = node_key(node)
        if key is None:
            continue
        kept = first.setdefault(key, node)
        if kept is node:
            continue
        for old, new in zip(node.outputs, kept.outputs):
            uses.replace(old, new)
        merged += 1
    graph.reorder()
    graph.merged = merged
    return graph
