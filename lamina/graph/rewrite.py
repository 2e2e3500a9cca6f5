"""One pattern -> rewrite engine for graph passes (tinygrad's ``PatternMatcher`` idea).

A :class:`~lamina.graph.patterns.Pat` describes a value by the op that made it, its
attributes and its inputs' patterns, capturing values by name. A :class:`Rule` pairs a
pattern with ``build(match)``, which returns a value equal to the matched one (built with
ops on symbolic tensors), or None to decline.
:func:`rewrite` tries the rules on every node, in topological order, replacing the *uses*
of each matched value (node inputs, graph outputs and variable updates, see
:class:`Uses`) until no rule fires; the replaced nodes are left unread and
:meth:`Graph.reorder` prunes them.

Stateful (random) nodes are never matched, so a rule cannot merge, fold or duplicate them.
"""
from __future__ import annotations

import collections

from .. import tree
from ..core.tensor import TensorBase
from ..errors import LaminaError, describe_shape
from .patterns import Const, Match, Pat, attrs_key, constant_value, is_constant_value
from ..core.symbolic import SymbolicTensor

MAX_SWEEPS = 64
__all__ = ["Const", "Match", "Pat", "Rule", "RewriteError", "Uses", "attrs_key",
           "constant_value", "is_constant_value", "readers_of", "replace_uses", "rewrite",
           "substitute"]


class RewriteError(LaminaError, RuntimeError):
    """A rewrite would change a value's shape or dtype, create a cycle, or never settle."""


class Rule:
    """``pattern`` -> ``build(match)``; ``name`` counts the rule's rewrites."""

    def __init__(self, name: str, pattern: Pat, build):
        self.name, self.pattern, self.build = name, pattern, build


class Uses:
    """Who reads each value of a graph (node inputs, graph outputs, updates), kept up to
    date by :meth:`replace`, which moves every use of a value to its replacement."""

    def __init__(self, graph):
        self.graph = graph
        self.readers: dict[int, list] = {}
        self._reader_ids: dict[int, set] = {}      # id(node)s of readers[k], made by replace
        self.known: set[int] = set()
        self.replaced: set[int] = set()
        self._index_all(graph.nodes)
        self.roots = {id(r) for r in graph.roots()}

    def _index_all(self, nodes) -> None:
        """:meth:`_index` of every node, inlined: passes build this index of graphs of tens
        of thousands of nodes (no reader id sets exist yet)."""
        readers, known = self.readers, self.known
        tensor = TensorBase
        for node in nodes:
            known.add(id(node))
            inputs = node.inputs
            if len(inputs) == 1:
                x = inputs[0]
                if isinstance(x, tensor):
                    key = id(x)
                    if key in readers:
                        readers[key].append(node)
                    else:
                        readers[key] = [node]
                continue
            seen = set()
            for x in inputs:
                if isinstance(x, tensor):
                    key = id(x)
                    if key not in seen:
                        seen.add(key)
                        if key in readers:
                            readers[key].append(node)
                        else:
                            readers[key] = [node]

    def _index(self, node) -> None:
        self.known.add(id(node))
        seen = set()
        for x in node.inputs:
            if isinstance(x, TensorBase) and id(x) not in seen:
                seen.add(id(x))
                self.readers.setdefault(id(x), []).append(node)
                ids = self._reader_ids.get(id(x))
                if ids is not None:
                    ids.add(id(node))

    def readers_of(self, value) -> list:
        return self.readers.get(id(value), [])

    def is_root(self, value) -> bool:
        """True for graph outputs and update values."""
        return id(value) in self.roots

    def only_read_by(self, value, nodes) -> bool:
        """True when ``value`` is no root and every node reading it is one of ``nodes``."""
        allowed = {id(n) for n in nodes}
        return not self.is_root(value) and all(id(n) in allowed for n in self.readers_of(value))

    def adopt(self, value, forbidden=None) -> None:
        """Index the new nodes that compute ``value``; they must not read ``forbidden``, and
        they inherit its node's layer (for error messages and ``to_dot``)."""
        layer = getattr(getattr(forbidden, "node", None), "layer", None)
        stack = [value]
        while stack:
            x = stack.pop()
            node = getattr(x, "node", None)
            if node is None or id(node) in self.known:
                continue
            if any(i is forbidden for i in node.inputs):
                raise RewriteError(f"rewrite: the replacement of {forbidden!r} reads it "
                                   f"(node {node.op.name}); that would be a cycle")
            self._index(node)
            if layer is not None and getattr(node, "layer", None) is None:
                node.layer = layer
            stack.extend(i for i in node.inputs if isinstance(i, SymbolicTensor))

    def replace(self, old, new) -> bool:
        """Every use of ``old`` reads ``new`` instead (the values must be equal); False when
        nothing changed. A graph output keeps ``old`` when ``new`` is an input, a variable
        or a constant, so outputs never alias buffers the caller or the plan owns."""
        if old is new:
            return False
        if not isinstance(new, TensorBase) or tuple(new.shape) != tuple(old.shape) or \
                new.dtype != old.dtype:
            got = f"{describe_shape(new.shape)} {new.dtype}" \
                if isinstance(new, TensorBase) else repr(new)
            raise RewriteError(f"rewrite: a value of shape {describe_shape(old.shape)} "
                               f"{old.dtype} cannot be replaced by {got}")
        self.adopt(new, forbidden=old)
        readers = self.readers.pop(id(old), [])
        self._reader_ids.pop(id(old), None)
        # A set answers "does this node read new already?": a value that many replaced
        # values collapse into (cse merges the optimizer's read of the learning rate for
        # every variable into one) gains thousands of readers, and scanning its list for
        # each one made the pass quadratic in the number of variables.
        new_readers = self.readers.setdefault(id(new), [])
        new_reader_ids = self._reader_ids.get(id(new))
        if new_reader_ids is None:
            new_reader_ids = self._reader_ids[id(new)] = {id(n) for n in new_readers}
        for node in readers:
            node.inputs = tuple(new if x is old else x for x in node.inputs)
            if id(node) not in new_reader_ids:
                new_reader_ids.add(id(node))
                new_readers.append(node)
        changed = bool(readers)
        if id(old) in self.roots:
            changed = self._replace_root(old, new) or changed
        if not self.is_root(old):
            self.replaced.add(id(old))
        return changed

    def _replace_root(self, old, new) -> bool:
        graph = self.graph
        changed = any(x is old for _, x in graph.updates)
        graph.updates = [(v, new if x is old else x) for v, x in graph.updates]
        leaves = tree.flatten(graph.outputs)
        if getattr(new, "node", None) is not None and any(x is old for x in leaves):
            changed = True
            graph.outputs = tree.pack_sequence_as(graph.outputs,
                                                  [new if x is old else x for x in leaves])
        self.roots = {id(r) for r in graph.roots()}
        return changed


def replace_uses(graph, old, new) -> bool:
    """Make every node input, graph output and update that reads ``old`` read ``new``
    (equal in value, shape and dtype); False when nothing read ``old``. Call
    ``graph.reorder()`` afterwards to prune."""
    return Uses(graph).replace(old, new)


def readers_of(readers: dict, value) -> list:
    """The nodes reading ``value``, from a ``graph.consumers()`` dict."""
    return readers.get(id(value), [])


def substitute(graph, mapping: dict, created=()) -> None:
    """Apply many replacements at once: ``mapping`` is ``id(old value) -> new value``;
    ``created`` lists new nodes whose inputs may name replaced values too. Then reorder."""
    def resolve(x):
        if not isinstance(x, TensorBase) or id(x) not in mapping:
            return x                    # most inputs: no replacement
        for _ in range(len(mapping) + 1):
            if not isinstance(x, TensorBase) or id(x) not in mapping:
                return x
            x = mapping[id(x)]
        raise RewriteError("substitute: the replacements form a cycle")
    for node in list(graph.nodes) + list(created):
        inputs = tuple(resolve(x) for x in node.inputs)
        if any(x is o for x in inputs for o in node.outputs):
            raise RewriteError(f"substitute: node {node.op.name} would read its own output")
        node.inputs = inputs
    graph.updates = [(v, resolve(x)) for v, x in graph.updates]
    leaves = [y if getattr(y, "node", None) is not None else x
              for x, y in ((x, resolve(x)) for x in tree.flatten(graph.outputs))]
    graph.outputs = tree.pack_sequence_as(graph.outputs, leaves)
    graph.reorder()


def rewrite(graph, rules, max_sweeps: int = MAX_SWEEPS) -> collections.Counter:
    """Apply ``rules`` until none fires; returns how often each rule fired."""
    counts: collections.Counter = collections.Counter()
    by_op: dict[str, list] = {}
    for sweep in range(max_sweeps):
        uses, fired = Uses(graph), []
        for node in list(graph.nodes):
            if node.op.stateful:
                continue
            if node.op.name not in by_op:
                by_op[node.op.name] = [r for r in rules if r.pattern.ops is None
                                       or node.op.name in r.pattern.ops]
            for rule in by_op[node.op.name]:
                index = rule.pattern.index
                if index >= len(node.outputs) or id(node.outputs[index]) in uses.replaced:
                    continue
                value = node.outputs[index]
                m = Match(value, uses)
                if not rule.pattern.match(value, m):
                    continue
                new = rule.build(m)
                if new is None or new is value:
                    continue
                if uses.replace(value, new):
                    fired.append(rule.name)
                    break
        if not fired:
            if sweep == 0:
                graph.reorder()
            # else: unchanged since the reorder that ended the previous sweep
            return counts
        graph.reorder()
        counts.update(fired)
    raise RewriteError(f"rewrite: rules still firing after {max_sweeps} sweeps (last: "
                       f"{sorted(set(fired))}); two rules undo each other")
