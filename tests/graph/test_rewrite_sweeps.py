"""The rewrite driver's cost on big graphs (issue 21): a sweep in which no rule fires
leaves the graph as the previous sweep's reorder left it, so it is not sorted again; the
graph, its numbers and the rules' counts are those of the full fixpoint."""
import numpy as np

import lamina
from lamina import ops
from lamina.graph import ir
from lamina.graph.executor import Plan, pack_results
from lamina.graph.rewrite import Const, Pat, Rule, rewrite

A = np.arange(6, dtype="float32").reshape(2, 3) / 4


def _count_reorders(monkeypatch) -> list:
    calls = []
    original = ir.Graph.reorder

    def counting(graph):
        calls.append(len(graph.nodes))
        original(graph)
    monkeypatch.setattr(ir.Graph, "reorder", counting)
    return calls


def _traced(fn):
    x = ops.convert_to_tensor(A)
    return lamina.jit(fn, passes=[]).trace(x), x


def _run(graph, x):
    backend = lamina.backend.get_backend()
    return pack_results(graph, backend, Plan(graph, backend)([x.data]))


DROP_ONE = Rule("times_one", Pat("multiply", Pat(name="x"), Const(1.0), commutative=True),
                lambda m: m["x"])


def test_the_sweep_that_finds_nothing_does_not_sort_the_graph_again(monkeypatch):
    graph, x = _traced(lambda t: ops.exp(t * 1.0) * 1.0 + t)
    assert [n.op.name for n in graph.nodes] == ["multiply", "exp", "multiply", "add"]
    calls = _count_reorders(monkeypatch)
    counts = rewrite(graph, [DROP_ONE])
    assert counts == {"times_one": 2}
    assert calls == [4]                 # after the sweep that fired; the second sweep: none
    assert [n.op.name for n in graph.nodes] == ["exp", "add"]
    np.testing.assert_allclose(_run(graph, x), np.exp(A) + A, rtol=1e-6)


def test_a_first_sweep_that_finds_nothing_still_prunes_and_sorts(monkeypatch):
    graph, x = _traced(lambda t: ops.exp(t) + t)
    dead = graph.nodes[0].outputs[0]
    graph.nodes.append(graph.nodes[0])          # a caller's unsorted list: a duplicate
    calls = _count_reorders(monkeypatch)
    assert rewrite(graph, [DROP_ONE]) == {}
    assert calls == [3]
    assert [n.op.name for n in graph.nodes] == ["exp", "add"]
    assert graph.nodes[0].outputs[0] is dead
    np.testing.assert_allclose(_run(graph, x), np.exp(A) + A, rtol=1e-6)
