"""The constant_fold pass: constant subgraphs and shape-only values are computed once at
compile time; random ops, variables, large results and graph outputs are left alone."""
import numpy as np

import lamina
from lamina import ops
from lamina.graph.passes import constant_fold as folding
from tests.graph.passes.jit_compare import (assert_shrinks, assert_training_keeps_numbers,
                                            compare, loss_and_gradients, op_counts, tensors)

R = np.random.default_rng(2)
A = R.standard_normal((3, 4)).astype("float32")


def test_shape_only_values_and_what_depends_on_them_fold():
    fn = lambda x: x * (ops.ones_like(x) * 3.0 + 1.0)                  # noqa: E731
    raw, graph = assert_shrinks(fn, tensors(A), ["constant_fold"], by=3)
    assert op_counts(graph) == {"multiply": 1} and graph.folded == 3


def test_counts_from_ones_like_fold_into_one_constant():
    fn = lambda x: x / ops.sum(ops.ones_like(x), axis=-1, keepdims=True)   # noqa: E731
    raw, graph = assert_shrinks(fn, tensors(A), ["constant_fold"], by=2)
    (node,) = graph.nodes
    np.testing.assert_array_equal(node.inputs[1].numpy(), np.full((3, 1), 4.0, "float32"))


def test_gradient_seeds_fold_in_a_training_graph():
    w = lamina.Variable(A, name="w_fold")
    step = loss_and_gradients(lambda x: ops.mean(ops.square(ops.matmul(x, w))), w)
    raw, graph = assert_shrinks(step, tensors(A.T), ["constant_fold"], by=3, rtol=1e-5)
    assert op_counts(graph)["fill_like"] == 0


def test_variables_are_never_folded():
    w = lamina.Variable([1.0, 2.0], name="w_not_folded")
    compiled = lamina.jit(lambda x: x + w * ops.ones_like(w), passes=["constant_fold"])
    x = ops.zeros((2,))
    np.testing.assert_allclose(compiled(x).numpy(), [1.0, 2.0])
    w.assign([5.0, 7.0])
    np.testing.assert_allclose(compiled(x).numpy(), [5.0, 7.0])


def test_random_ops_are_never_folded():
    def fn(x):
        noise = ops.random_uniform((3, 4), seed=lamina.random.SeedGenerator(1))
        return x + noise * ops.ones_like(x)
    graph = lamina.jit(fn, passes=["constant_fold"]).trace(ops.convert_to_tensor(A))
    assert op_counts(graph)["random_uniform"] == 1 and op_counts(graph)["fill_like"] == 0


def test_large_results_stay_computed_at_run_time(monkeypatch):
    monkeypatch.setattr(folding, "FOLD_LIMIT_BYTES", 32)
    fn = lambda x: x + ops.ones_like(x)                                 # noqa: E731
    raw, graph = compare(fn, tensors(A), ["constant_fold"])
    assert op_counts(graph)["fill_like"] == 1 and graph.folded == 0
    raw, graph = compare(fn, tensors(A[:2, :2]), ["constant_fold"])
    assert op_counts(graph)["fill_like"] == 0


def test_a_folded_output_is_a_fresh_array_at_every_call():
    compiled = lamina.jit(lambda x: ops.zeros_like(x) + 1.0, passes=["constant_fold"])
    x = ops.convert_to_tensor(A)
    first = compiled(x)
    first.data[...] = 5.0                        # a caller writing into a result ...
    np.testing.assert_array_equal(compiled(x).numpy(), np.ones((3, 4)))   # ... changes nothing
    assert len(compiled.trace(x).nodes) == 1


def test_mlp_training_keeps_its_numbers_with_constant_folding():
    raw, graph = assert_training_keeps_numbers(["constant_fold"])
    assert len(graph.nodes) < len(raw.nodes) and graph.folded >= 3
