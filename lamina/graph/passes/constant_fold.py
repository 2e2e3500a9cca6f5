"""Constant and shape folding: a node whose inputs are all constants (concrete tensors) is
evaluated once, at compile time, and its output becomes a constant; so is a node whose value
depends only on static shapes (``fill_like``: ``zeros_like``/``ones_like``/``full_like``,
whatever its input computes). Folding cascades along the topological order.

Never folded: stateful (random) ops; results larger than ``FOLD_LIMIT_BYTES`` (they stay
computed at run time rather than held for the plan's lifetime; Grappler caps at 10 MiB);
nodes whose evaluation raises (they raise at run time, where the executor names the layer);
graph outputs stay computed (see :meth:`lamina.graph.rewrite.Uses.replace`).
"""
from __future__ import annotations

from ...core.op import c_ordered
from ...core.tensor import Tensor, TensorBase
from ...backend import get_backend
from ...dtypes import itemsize
from ..rewrite import Uses
from . import register

FOLD_LIMIT_BYTES = 1 << 20
SHAPE_ONLY = ("fill_like",)


def _nbytes(value) -> int:
    count = 1
    for d in value.shape:
        count *= d
    return count * itemsize(value.dtype)


def _foldable(node) -> bool:
    # the cheapest test that rejects most nodes first: a symbolic input
    if node.op.stateful or node.op.name not in SHAPE_ONLY and not all(
            isinstance(x, Tensor) or not isinstance(x, TensorBase) for x in node.inputs):
        return False
    if any(None in tuple(o.shape) for o in node.outputs):
        return False
    return not any(_nbytes(o) > FOLD_LIMIT_BYTES for o in node.outputs)


def _evaluate(node, backend) -> list | None:
    if node.op.name == "fill_like":
        out = node.outputs[0]
        results = [backend.full(tuple(out.shape), node.attrs.get("value", 0), out.dtype)]
    else:
        arrays = [x.data if isinstance(x, Tensor) else x for x in node.inputs]
        try:
            result = node.op.forward(backend, *arrays, **node.attrs)
        except Exception:       # an error the step must raise when it runs, not here
            return None
        if node.op.writes_out:
            result = c_ordered(result)        # the layout eager mode gives it
        results = list(result) if node.several else [result]
    constants = []
    for out, value in zip(node.outputs, results):
        array = backend.cast(backend.asarray(value, dtype=out.dtype), out.dtype)  # owned copy
        if tuple(array.shape) != tuple(out.shape):
            return None
        constants.append(Tensor._wrap(array, backend))
    return constants


@register("constant_fold")
def constant_fold(graph):
    uses, folded = Uses(graph), 0
    for node in list(graph.nodes):
        if not _foldable(node):
            continue
        owners = [x.backend for x in node.inputs if isinstance(x, Tensor)]
        constants = _evaluate(node, owners[0] if owners else get_backend())
        if constants is None:
            continue
        for old, new in zip(node.outputs, constants):
            uses.replace(old, new)
        folded += 1
    graph.reorder()
    graph.folded = folded
    return graph
