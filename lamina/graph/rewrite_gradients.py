"""Replacing a forward chain whose gradient autodiff has already built.

A traced training step holds the forward pass *and* the nodes that autodiff emitted for its
gradient, and those read the forward chain's intermediate values. Replacing only the
forward chain by a fused op would leave the backward nodes (and the intermediates they
read) in place, so nothing would shrink. :func:`replace_chain` also finds the chain's
backward part: it differentiates the old chain again, from a fresh seed, and looks for a
graph value built the same way (same ops, attributes and inputs; ``add``/``multiply`` in
either order), the seed standing for the gradient that reached the chain's output. That
value is replaced by the fused op's own gradient rule applied to the same seed, which
computes the same vector-Jacobian product. Where no such value exists (a graph without
gradients), only the forward chain is replaced.
"""
from __future__ import annotations

from ..core.tensor import Tensor, TensorBase
from ..core.op import Context
from .autodiff import gradients
from .rewrite import Match, attrs_key
from ..core.symbolic import SymbolicTensor

COMMUTATIVE = ("add", "multiply")
SEED = "seed"


def replace_chain(m: Match, new, keep=()):
    """``new`` (the output of a fused op) in place of ``m.root``, the chain's gradient
    replaced by the fused op's; returns ``new``, or None (nothing changed) when a value
    computed inside the chain (``m.nodes``, except ``keep``) is read by anything but the
    chain and its gradient."""
    fused = new.node
    found, backward, seed = find_gradients(m.uses, m.root, fused.inputs)
    allowed, kept = list(m.nodes) + backward, {id(k) for k in keep}
    for node in m.nodes:
        for value in node.outputs:
            if value is not m.root and id(value) not in kept and \
                    not m.uses.only_read_by(value, allowed):
                return None
    if found:
        needs = tuple(i in found for i in range(len(fused.inputs)))
        grads = fused.op.gradient(Context(fused.inputs, fused.outputs, fused.attrs, needs),
                                  seed)
        grads = grads if isinstance(grads, (tuple, list)) else (grads,)
        for position, value in found.items():
            m.uses.replace(value, grads[position])
    return new


def find_gradients(uses, old, inputs):
    """The graph values that are the gradient of ``old`` with respect to ``inputs`` (those
    autodiff built): ({input position: value}, the nodes computing them from the seed, the
    seed: the gradient that reached ``old``)."""
    sources = [(i, x) for i, x in enumerate(inputs) if isinstance(x, SymbolicTensor)]
    seed = SymbolicTensor(old.shape, old.dtype, name="seed")
    derived = gradients([old], [x for _, x in sources], seeds=[seed])
    fresh = _fresh_nodes(derived, uses.known)
    binding: dict = {}
    found, backward = {}, []
    for (position, _), grad in zip(sources, derived):
        if grad is None or getattr(grad, "node", None) is None:
            continue
        for candidate in _candidates(uses, grad):
            memo: dict = {}
            saved = dict(binding)
            if _same(grad, candidate, seed, binding, fresh, memo):
                found[position] = candidate
                backward.extend(memo.values())
                break
            binding.clear()
            binding.update(saved)
    if SEED not in binding:
        return {}, [], None
    return found, backward, binding[SEED]


def _fresh_nodes(values, known) -> set:
    """ids of the nodes computing ``values`` that the graph does not hold yet."""
    fresh, stack = set(), [v for v in values if v is not None]
    while stack:
        node = getattr(stack.pop(), "node", None)
        if node is None or id(node) in known or id(node) in fresh:
            continue
        fresh.add(id(node))
        stack.extend(x for x in node.inputs if isinstance(x, SymbolicTensor))
    return fresh


def _candidates(uses, grad):
    """Graph values that could be ``grad``: same op, output index, shape and dtype."""
    op, index = grad.node.op, grad.index
    for node in uses.graph.nodes:
        if node.op is op and len(node.outputs) > index and id(node) in uses.known:
            value = node.outputs[index]
            if tuple(value.shape) == tuple(grad.shape) and value.dtype == grad.dtype and \
                    id(value) not in uses.replaced:
                yield value


def _same(d, e, seed, binding: dict, fresh: set, memo: dict) -> bool:
    """Is graph value ``e`` built as the derived value ``d`` (``seed`` bound once)?"""
    if d is seed:
        if SEED in binding:
            return binding[SEED] is e
        if not isinstance(e, TensorBase) or tuple(e.shape) != tuple(d.shape) or \
                e.dtype != d.dtype:
            return False
        binding[SEED] = e
        return True
    if d is e:
        return True
    if isinstance(d, Tensor):
        return isinstance(e, Tensor) and _equal_constants(d, e)
    node = getattr(d, "node", None)
    if node is None or id(node) not in fresh:
        return False
    key = (id(d), id(e))
    if key in memo:
        return True
    other = getattr(e, "node", None)
    if other is None or other.op is not node.op or e.index != d.index or \
            len(other.inputs) != len(node.inputs) or tuple(e.shape) != tuple(d.shape):
        return False
    try:
        if attrs_key(other.attrs) != attrs_key(node.attrs):
            return False
    except TypeError:
        return False
    orders = [other.inputs]
    if node.op.name in COMMUTATIVE and len(other.inputs) == 2:
        orders.append(other.inputs[::-1])
    for inputs in orders:
        saved_binding, saved_memo = dict(binding), dict(memo)
        if all(_same(a, b, seed, binding, fresh, memo) for a, b in zip(node.inputs, inputs)):
            memo[key] = other
            return True
        binding.clear()
        binding.update(saved_binding)
        memo.clear()
        memo.update(saved_memo)
    return False


def _equal_constants(a, b) -> bool:
    if a is b:
        return True
    if a.dtype != b.dtype or tuple(a.shape) != tuple(b.shape) or a.size > 4096:
        return False
    return bool((a.numpy() == b.numpy()).all())
