"""Patterns over graph values, for the rewrite engine (``lamina/graph/rewrite.py``).

A :class:`Pat` describes a value by the op that made it, that op's attributes and the
patterns of its inputs; ``name=`` captures the matched value, and a name seen twice must be
the same value. :class:`Const` matches constants. Stateful (random) nodes never match, so a
rule can neither merge, fold nor duplicate them.
"""
from __future__ import annotations

from ..core.tensor import Tensor
from ..core.symbolic import SymbolicTensor

CONSTANT_VALUE_LIMIT = 4096     # constant_value() reads at most this many elements


def constant_value(x):
    """The Python scalar every element of ``x`` equals, when ``x`` is a constant (a small
    concrete tensor, or a ``fill_like`` node's output); else None."""
    node = getattr(x, "node", None)
    if node is not None and node.op.name == "fill_like":
        return node.attrs.get("value")
    if not isinstance(x, Tensor) or x.size == 0 or x.size > CONSTANT_VALUE_LIMIT:
        return None
    flat = x.numpy().reshape(-1)
    first = flat[0]
    return first.item() if bool((flat == first).all()) else None


def is_constant_value(x, value) -> bool:
    """True when ``x`` is a constant whose every element equals ``value``."""
    found = constant_value(x)
    return found is not None and found == value


def attrs_key(value):
    """A hashable key comparing attributes by value (tuples, lists, dicts, slices, types)."""
    if isinstance(value, dict):
        return ("dict", tuple(sorted((str(k), attrs_key(v)) for k, v in value.items())))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(attrs_key(v) for v in value))
    if isinstance(value, slice):
        return ("slice", attrs_key(value.start), attrs_key(value.stop), attrs_key(value.step))
    hash(value)                 # unhashable attribute values raise TypeError here
    return (type(value).__name__, value)


class Match(dict):
    """Captured values by name, plus the matched value (``root``), the matched nodes and the
    :class:`Uses` index of the graph (who reads what)."""

    def __init__(self, root, uses):
        super().__init__()
        self.root, self.uses, self.nodes = root, uses, []

    def _save(self):
        return dict(self), len(self.nodes)

    def _restore(self, saved):
        self.clear()
        self.update(saved[0])
        del self.nodes[saved[1]:]


class Pat:
    """A value pattern. ``op``: an op name or tuple of names (None: any value); ``inputs``:
    one pattern per input (none given: inputs unchecked); ``attrs``: a dict of required
    values or a predicate ``attrs -> bool``; ``where``: a predicate ``(value, match) ->
    bool`` run last; ``commutative``: two inputs may match in either order."""

    def __init__(self, op=None, *inputs, name=None, attrs=None, where=None,
                 commutative=False, index=0):
        self.ops = None if op is None else ((op,) if isinstance(op, str) else tuple(op))
        self.inputs, self.name, self.attrs, self.where = inputs, name, attrs, where
        self.commutative, self.index = commutative, index

    def match(self, value, m: Match) -> bool:
        if self.ops is not None and not self._match_node(value, m):
            return False
        if self.name is not None:
            if self.name in m and m[self.name] is not value:
                return False
            m[self.name] = value
        return self.where is None or bool(self.where(value, m))

    def _match_node(self, value, m: Match) -> bool:
        node = value.node if isinstance(value, SymbolicTensor) else None
        if node is None or node.op.name not in self.ops or node.op.stateful or \
                value.index != self.index:
            return False
        if isinstance(self.attrs, dict):
            if any(node.attrs.get(k) != v for k, v in self.attrs.items()):
                return False
        elif self.attrs is not None and not self.attrs(node.attrs):
            return False
        if self.inputs:
            if len(node.inputs) != len(self.inputs):
                return False
            orders = [node.inputs]
            if self.commutative and len(node.inputs) == 2:
                orders.append(node.inputs[::-1])
            for inputs in orders:
                saved = m._save()
                if all(p.match(x, m) for p, x in zip(self.inputs, inputs)):
                    break
                m._restore(saved)
            else:
                return False
        m.nodes.append(node)
        return True


class Const(Pat):
    """A constant (see :func:`constant_value`), equal to ``value`` everywhere if given."""

    def __init__(self, value=None, name=None, where=None):
        super().__init__(None, name=name, where=where)
        self.value = value

    def match(self, value, m: Match) -> bool:
        found = constant_value(value)
        if found is None or (self.value is not None and found != self.value):
            return False
        return super().match(value, m)
