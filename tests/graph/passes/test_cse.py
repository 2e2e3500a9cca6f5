"""The cse pass: repeated computations run once; random draws are never merged."""
import numpy as np

import lamina
from lamina import ops
from lamina.graph.passes.cse import node_key
from tests.graph.passes.jit_compare import (assert_shrinks, assert_training_keeps_numbers,
                                            compare, op_counts, tensors)

R = np.random.default_rng(4)
A = R.standard_normal((3, 4)).astype("float32")
B = R.standard_normal((3, 4)).astype("float32")


def test_a_repeated_expression_runs_once():
    fn = lambda x: ops.exp(x) + ops.exp(x)                                # noqa: E731
    raw, graph = assert_shrinks(fn, tensors(A), ["cse"], by=1)
    assert op_counts(graph)["exp"] == 1 and graph.merged == 1


def test_merging_cascades_through_a_chain():
    fn = lambda x: ops.tanh(ops.exp(x) * 2.0) - ops.tanh(ops.exp(x) * 2.0)   # noqa: E731
    raw, graph = assert_shrinks(fn, tensors(A), ["cse"], by=3)
    assert op_counts(graph) == {"exp": 1, "multiply": 1, "tanh": 1, "subtract": 1}


def test_commutative_ops_match_in_either_order():
    fn = lambda a, b: a * b + b * a                                        # noqa: E731
    assert_shrinks(fn, tensors(A, B), ["cse"], by=1)
    fn = lambda a, b: a - b + (b - a)                                      # noqa: E731
    raw, graph = compare(fn, tensors(A, B), ["cse"])
    assert op_counts(graph)["subtract"] == 2


def test_attributes_compare_by_value():
    fn = lambda x: ops.sum(x, axis=1) * ops.sum(x, axis=(1,))              # noqa: E731
    assert_shrinks(fn, tensors(A), ["cse"], by=1)
    fn = lambda x: ops.sum(x, axis=1) + ops.sum(x, axis=1, keepdims=True)  # noqa: E731
    raw, graph = compare(fn, tensors(A), ["cse"])
    assert op_counts(graph)["sum"] == 2


def test_small_constants_compare_by_value():
    fn = lambda x: ops.exp(x + 1.5) / ops.exp(x + 1.5)                     # noqa: E731
    assert_shrinks(fn, tensors(A), ["cse"], by=2)
    fn = lambda x: ops.exp(x + 1.5) / ops.exp(x + 2.5)                     # noqa: E731
    raw, graph = compare(fn, tensors(A), ["cse"])
    assert op_counts(graph)["add"] == 2


def test_multi_output_nodes_merge_all_outputs():
    def fn(x):
        a, b = ops.split(x, 2, axis=1)
        c, d = ops.split(x, 2, axis=1)
        return a * d + b * c
    raw, graph = assert_shrinks(fn, tensors(A), ["cse"], by=1)
    assert op_counts(graph)["split"] == 1


def test_random_draws_are_never_merged():
    seeds = lamina.random.SeedGenerator(1)

    def fn(x):
        return x + ops.random_uniform((3, 4), seed=seeds) - ops.random_uniform((3, 4),
                                                                               seed=seeds)
    graph = lamina.jit(fn, passes=["cse"]).trace(ops.convert_to_tensor(A))
    assert op_counts(graph)["random_uniform"] == 2
    assert all(node_key(n) is None for n in graph.nodes if n.op.name == "random_uniform")


def test_updates_keep_their_values():
    v = lamina.Variable(np.ones(3, "float32"), name="v_cse")
    u = lamina.Variable(np.ones(3, "float32"), name="u_cse")

    @lamina.jit
    def step(x):
        v.assign(ops.exp(x) + v)
        u.assign(ops.exp(x) * 2.0)
        return ops.sum(ops.exp(x))
    x = ops.convert_to_tensor(np.array([0.0, 1.0, 2.0], "float32"))
    step(x)
    np.testing.assert_allclose(v.numpy(), np.exp(x.numpy()) + 1, rtol=1e-6)
    np.testing.assert_allclose(u.numpy(), np.exp(x.numpy()) * 2, rtol=1e-6)
    assert op_counts(step.trace(x))["exp"] == 1


def test_mlp_training_keeps_its_numbers_with_cse():
    raw, graph = assert_training_keeps_numbers(["cse"])
    assert graph.history[-1] == ("cse", len(graph.nodes))
