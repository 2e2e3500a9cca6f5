"""Elementwise fusion: a tree of unary/binary ops becomes one ``elementwise_chain`` node,
which the cupy backend runs as one generated CUDA kernel (``backend/cupy_chain.py``) and
the numpy backend, where numba is installed, as one compiled ufunc (``numba_chain.py``).

On a GPU every small elementwise op costs a kernel launch and a round trip of its operands
through memory; on a CPU every numpy op is a pass over memory and a Python call. An
optimizer's update (Adam's is ~15 ops per variable) or an activation's gradient is a chain
of them. A chain is fused only where the backend compiles its program
(``Backend.compiles_chain``: any program on cupy; exactly rounded steps with numba), since
run step by step it is no faster than the ops it replaces (``force=True`` fuses anyway,
for tests).

A value is absorbed into the chain of the node reading it when both nodes are fusable
(a unary/binary op of ``lamina/ops/elementwise.py`` or ``relu``, with a CUDA expression,
not stateful, one output, every tensor in float32 or float64 of one dtype) and the value
is read by that node alone, is not a graph output and not an update. So no intermediate
value is lost, nothing is computed twice, random ops are never touched and updates keep
their values. Scalar constants become literals of the program; larger or non-finite ones
stay inputs. Chains of at least ``MIN_STEPS`` ops with at least one tensor input are
replaced (a chain of constants is constant folding's job).
"""
from __future__ import annotations

import math

from ...core.tensor import Tensor, TensorBase
from ...backend import get_backend
from ...ops.elementwise import Binary, Unary
from ...ops.elementwise_chain import CHAIN_DTYPES, STEP_ARITY, ElementwiseChain
from ..rewrite import substitute
from ...core.symbolic import SymbolicTensor, symbolic_apply
from . import register

MIN_STEPS = 2


def applies(force: bool = False) -> bool:
    """True when the pass rewrites graphs: on a backend whose ``elementwise_chain`` is one
    compiled kernel (``Backend.compiles_chain``: cupy; numpy with numba), or when forced."""
    return force or get_backend().compiles_chain()


@register("fuse_elementwise")
def fuse_elementwise(graph, force: bool = False):
    if not applies(force):
        return graph
    backend = get_backend()
    readers = graph.consumers()
    roots = {id(r) for r in graph.roots()}

    known: dict[int, bool] = {}     # absorbed() per value: nothing it reads changes
                                    # before substitute() below, and each value is asked
                                    # up to three times

    def absorbed(value) -> bool:
        """``value`` is computed inside the chain of its single reader."""
        if not isinstance(value, SymbolicTensor) or value.node is None or id(value) in roots:
            return False
        answer = known.get(id(value))
        if answer is None:
            users = readers.get(id(value), [])
            answer = known[id(value)] = bool(users) and all(u is users[0] for u in users) \
                and fusable(value.node) and fusable(users[0])
        return answer

    mapping: dict[int, object] = {}
    created: list = []
    for node in reversed(graph.nodes):
        if not fusable(node) or absorbed(node.outputs[0]):
            continue
        chain = _program(node, absorbed)
        if chain is None:
            continue
        inputs, program = chain
        if not (force or backend.compiles_chain(program)):
            continue                # runs faster as the separate ops than step by step
        y = symbolic_apply(ElementwiseChain, inputs,
                           {"program": program, "dtype": node.outputs[0].dtype})
        y.node.layer = getattr(node, "layer", None)
        mapping[id(node.outputs[0])] = y
        created.append(y.node)
    graph.fused_chains = len(created)
    if created:
        substitute(graph, mapping, created)
    return graph


def fusable(node) -> bool:
    """A single-output elementwise op with a chain step, in one float dtype."""
    op = node.op
    if op.stateful or len(node.outputs) != 1 or op.name not in STEP_ARITY:
        return False
    if not (isinstance(op, (Unary, Binary)) or op.name == "relu"):
        return False
    if len(node.inputs) != STEP_ARITY[op.name]:
        return False
    out = node.outputs[0]
    if out.dtype not in CHAIN_DTYPES:
        return False
    return all(x.dtype == out.dtype if isinstance(x, TensorBase) else _is_number(x)
               for x in node.inputs)


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _literal(x):
    """The Python float of a finite scalar constant, else None."""
    if isinstance(x, SymbolicTensor):
        return None
    if isinstance(x, Tensor):
        if tuple(x.shape) != ():
            return None
        x = x.numpy().item()
    return float(x) if _is_number(x) else None


def _program(root, absorbed):
    """(external inputs, program) of the tree under ``root``, or None when too small.

    Steps are numbered in post-order (operands before the op reading them), iteratively so
    that a long chain cannot exhaust Python's recursion limit."""
    inputs: list = []
    steps: list = []
    refs: dict[int, tuple] = {}

    def leaf_ref(x) -> tuple:
        if id(x) not in refs:
            literal = _literal(x)
            if literal is not None:
                refs[id(x)] = ("c", literal)
            else:
                refs[id(x)] = ("x", len(inputs))
                inputs.append(x)
        return refs[id(x)]

    stack = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        value = node.outputs[0]
        if id(value) in refs:
            continue
        if expanded:
            args = tuple(refs[id(x)] if absorbed(x) else leaf_ref(x) for x in node.inputs)
            steps.append((node.op.name, args))
            refs[id(value)] = ("t", len(steps) - 1)
            continue
        stack.append((node, True))
        stack.extend((x.node, False) for x in reversed(node.inputs)
                     if absorbed(x) and id(x) not in refs)
    if len(steps) < MIN_STEPS or not inputs:
        return None
    return tuple(inputs), tuple(steps)
