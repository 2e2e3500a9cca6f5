"""Inference batch-norm folding: a per-channel affine after a conv2d/dense goes into it.

BatchNormalization in inference form is ``y * s + t`` with per-channel ``s = gamma /
sqrt(var + eps)`` and ``t = beta - mean * s`` (``lamina/layers/normalization/
batch_normalization.py``). When ``y = conv2d(x, W) [+ b]`` (or ``x @ W [+ b]``) and only
that affine reads ``y``, then ``y * s + t = conv2d(x, W * s) + (b * s + t)``: the kernel is
scaled per output channel and the two full-size passes over the activations disappear.
``W * s`` and ``b * s + t`` are small graph ops on the variables, so they follow the
variables when these change between calls (set_weights, more training). The resulting
``conv2d + add(bias)`` is what ``fuse`` then turns into one fused node.

Legal only where ``s`` and ``t`` are inference constants of the step: computed from
variables and constants alone (no data input, no random op) and from no variable that this
graph updates (a training step's batch statistics and moving averages never fold), and
where no other node (a gradient, say) reads the intermediate values.
"""
from __future__ import annotations

from ... import ops
from ...core.tensor import TensorBase
from ..rewrite import readers_of, substitute
from ...core.symbolic import SymbolicTensor, symbolic_apply
from . import register

_LINEAR = ("conv2d", "matmul")


@register("fold_batchnorm")
def fold_batchnorm(graph):
    if any(getattr(variable, "trainable", False) for variable, _ in graph.updates):
        # Inference only: a training step keeps eager's rounding. Folding rounds the
        # forward pass differently, and optimizers with normalized steps (Adam, RMSprop,
        # Lion) turn a parameter's rounding-noise gradient (a bias before a normalization)
        # into full-size steps, so training would drift from eager (fuzzer seed 1106).
        return graph
    readers = graph.consumers()
    roots = {id(r) for r in graph.roots()}
    variable_inputs = _not_constant_inputs(graph)
    varying = _depends_on(graph, variable_inputs)
    mapping: dict[int, object] = {}
    created: list = []
    known = {id(node) for node in graph.nodes}
    for node in list(graph.nodes):
        match = _match(node, readers, roots, varying)
        if match is not None:
            created.extend(_fold(match, mapping, known))
    if created:
        substitute(graph, mapping, created)
    return graph


def _not_constant_inputs(graph) -> set:
    """ids of the values that are not constant within a step: data inputs and the
    placeholders of variables this graph writes."""
    written = {id(variable) for variable, _ in graph.updates}
    ids = {id(x) for x in graph.inputs}
    ids.update(id(p) for v, p in graph.variables if id(v) in written)
    return ids


def _depends_on(graph, sources: set) -> set:
    """ids of values computed from ``sources`` or by a stateful (random) op."""
    varying = set(sources)
    for node in graph.nodes:
        if node.op.stateful or any(id(x) in varying for x in node.inputs):
            varying.update(id(o) for o in node.outputs)
    return varying


def _per_channel(t, channels: int, rank: int, varying: set) -> bool:
    """``t`` broadcasts along the last axis only (ones elsewhere) and is step-constant."""
    if not isinstance(t, TensorBase) or id(t) in varying or len(t.shape) > rank:
        return False
    shape = tuple(t.shape)
    return all(d == 1 for d in shape[:-1]) and (not shape or shape[-1] in (1, channels))


def _split(node, value):
    """The operand of a binary node that is not ``value`` (None if it reads value twice)."""
    a, b = node.inputs
    return b if a is value and b is not value else a if b is value and a is not value \
        else None


def _match(node, readers, roots, varying):
    """An affine ``(y * s) +/- t`` on a linear op's output, as the pieces to fold."""
    if node.op.name not in ("add", "subtract") or len(node.inputs) != 2:
        return None
    for scaled in node.inputs:
        producer = scaled.node if isinstance(scaled, SymbolicTensor) else None
        if producer is None or producer.op.name != "multiply":
            continue
        if node.op.name == "subtract" and scaled is not node.inputs[0]:
            continue
        shift = _split(node, scaled)
        chain = _linear_chain(producer, readers, roots, varying)
        if chain is None or readers_of(readers, scaled) != [node] or id(scaled) in roots:
            continue
        linear, bias, y, scale = chain
        channels, rank = y.shape[-1], len(y.shape)
        if _per_channel(shift, channels, rank, varying) and \
                tuple(node.outputs[0].shape) == tuple(y.shape):
            return node, linear, bias, scale, shift, node.op.name == "subtract"
    return None


def _linear_chain(multiply, readers, roots, varying):
    """``multiply(y, s)`` with ``y = linear(x, W) [+ b]`` read by nothing else."""
    for y in multiply.inputs:
        if not isinstance(y, SymbolicTensor) or y.node is None or len(y.shape) < 2:
            continue
        scale = _split(multiply, y)
        if scale is None or not _per_channel(scale, y.shape[-1], len(y.shape), varying):
            continue
        if readers_of(readers, y) != [multiply] or id(y) in roots:
            continue
        producer, bias = y.node, None
        if producer.op.name == "add":
            inner = [x for x in producer.inputs
                     if isinstance(x, SymbolicTensor) and x.node is not None
                     and x.node.op.name in _LINEAR and tuple(x.shape) == tuple(y.shape)]
            if len(inner) != 1:
                continue
            bias = _split(producer, inner[0])
            if bias is None or tuple(bias.shape) != (y.shape[-1],) or \
                    readers_of(readers, inner[0]) != [producer] or id(inner[0]) in roots:
                continue
            producer = inner[0].node
        if _foldable_linear(producer):
            return producer, bias, y, scale
    return None


def _foldable_linear(node) -> bool:
    if node.op.name not in _LINEAR or node.op.stateful or len(node.inputs) != 2:
        return False
    x, w = node.inputs
    if not isinstance(w, TensorBase):
        return False
    return node.op.name == "conv2d" or (len(w.shape) == 2 and len(x.shape) >= 2)


def _vector(t, new: list):
    """A per-channel operand as a (channels,) or (1,) vector, skipping a reshape node."""
    if isinstance(t, SymbolicTensor) and t.node is not None and t.node.op.name == "reshape":
        source = t.node.inputs[0]
        if isinstance(source, TensorBase) and len(source.shape) == 1 and \
                source.shape[0] == (t.shape[-1] if t.shape else 1):
            return source
    if len(t.shape) == 1:
        return t
    return _made(ops.reshape(t, (t.shape[-1] if t.shape else 1,)), new)


def _made(tensor, new: list):
    """Record the node that made ``tensor`` (constants made from constants have none)."""
    if isinstance(tensor, SymbolicTensor) and tensor.node is not None:
        new.append(tensor.node)
    return tensor


def _fold(match, mapping, known: set) -> list:
    """Build ``linear(x, W * s) + (b * s + t)``; map the affine's output to it; return
    the new nodes."""
    affine, linear, bias, scale, shift, subtract = match
    x, w = linear.inputs
    channels = linear.outputs[0].shape[-1]
    new: list = []
    s, t = _vector(scale, new), _vector(shift, new)
    if subtract:
        t = _made(ops.negative(t), new)
    new_w = _made(ops.multiply(w, s), new)
    new_b = t if bias is None else _made(ops.add(_made(ops.multiply(bias, s), new), t), new)
    if tuple(new_b.shape) != (channels,):
        new_b = _made(ops.broadcast_to(new_b, (channels,)), new)
    y = _made(symbolic_apply(linear.op, (x, new_w), linear.attrs), new)
    out = _made(ops.add(y, new_b), new)
    mapping[id(affine.outputs[0])] = out
    new = [node for node in new if id(node) not in known]
    for node in new:           # errors and to_dot name the layer a node came from
        if hasattr(node, "layer"):
            node.layer = getattr(linear if node in (y.node, out.node) else affine, "layer",
                                 None)
    return new
