"""The simplify pass: each rule fires where it applies, the graph shrinks, and the numbers
equal the unoptimized graph's and eager mode's."""
import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.ops import OP_REGISTRY
from tests.graph.passes.jit_compare import (assert_shrinks, assert_training_keeps_numbers,
                                            compare, loss_and_gradients, op_counts, tensors)

R = np.random.default_rng(0)
A = R.standard_normal((2, 3)).astype("float32")
B = R.standard_normal((2, 3)).astype("float32")
V = R.standard_normal((3,)).astype("float32")
COL = R.standard_normal((4, 1)).astype("float32")
I = np.arange(6, dtype="int32").reshape(2, 3)


def op(name, *inputs, **attrs):
    return OP_REGISTRY[name](*inputs, **attrs)


# (rule, function, inputs, nodes saved at least)
CASES = [
    ("identity_reshape", lambda x: ops.exp(op("reshape", x, shape=(2, 3))), [A], 1),
    ("reshape_chain", lambda x: ops.exp(ops.reshape(ops.reshape(x, (6,)), (3, 2))), [A], 1),
    ("reshape_chain", lambda x: ops.exp(ops.squeeze(ops.expand_dims(x, 0), 0)), [A], 2),
    ("identity_transpose", lambda x: ops.exp(op("transpose", x, axes=(0, 1))), [A], 1),
    ("transpose_pair", lambda x: ops.exp(ops.transpose(ops.transpose(x))), [A], 2),
    ("transpose_pair", lambda x: ops.exp(ops.transpose(ops.transpose(
        ops.reshape(x, (1, 2, 3)), (1, 0, 2)), (2, 0, 1))), [A], 1),
    ("identity_broadcast", lambda x: ops.exp(op("broadcast_to", x, shape=(2, 3))), [A], 1),
    ("broadcast_chain", lambda v: ops.exp(ops.broadcast_to(ops.broadcast_to(v, (2, 3)),
                                                           (4, 2, 3))), [V], 1),
    ("broadcast_of_reshape", lambda v: ops.exp(ops.broadcast_to(ops.expand_dims(v, 0),
                                                                (4, 3))), [V], 1),
    ("identity_cast", lambda x: ops.exp(op("cast", x, dtype="float32")), [A], 1),
    ("stop_gradient", lambda x: ops.exp(ops.stop_gradient(x) * 2.0), [A], 1),
    ("cast_chain", lambda i: ops.exp(ops.cast(ops.cast(i, "float64"), "float32")), [I], 1),
    ("multiply_by_one", lambda x: ops.exp(x * 1.0), [A], 1),
    ("multiply_by_one", lambda x: ops.exp(1.0 * x), [A], 1),
    ("multiply_by_one", lambda x: ops.exp(x * ops.ones_like(x)), [A], 2),
    ("multiply_by_one", lambda v: ops.exp(v * ops.ones((2, 3))), [V], 0),   # a view
    ("add_zero", lambda x: ops.exp(x + 0.0), [A], 1),
    ("add_zero", lambda x: ops.exp(ops.zeros_like(x) + x), [A], 2),
    ("subtract_zero", lambda x: ops.exp(x - 0.0), [A], 1),
    ("divide_by_one", lambda x: ops.exp(x / 1.0), [A], 1),
    ("double_negation", lambda x: ops.exp(-(-x)), [A], 2),
    ("add_negative", lambda a, b: ops.exp(a + (-b)), [A, B], 1),
    ("add_negative", lambda a, b: ops.exp((-b) + a), [A, B], 1),
    ("subtract_negative", lambda a, b: ops.exp(a - (-b)), [A, B], 1),
    ("trivial_reduction", lambda c: ops.exp(ops.sum(c, axis=1)), [COL], 0),
    ("trivial_reduction", lambda c: ops.exp(ops.mean(c, axis=1, keepdims=True)), [COL], 1),
    ("unbroadcast_operands", lambda a, v: ops.exp(a * ops.broadcast_to(v, (2, 3))), [A, V], 1),
    ("log_softmax", lambda x: ops.log(ops.softmax(x)), [A], 1),
]


@pytest.mark.parametrize("rule,fn,arrays,saved", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_rule_fires_shrinks_and_keeps_numbers(rule, fn, arrays, saved):
    raw, graph = assert_shrinks(fn, tensors(*arrays), ["simplify"], by=saved)
    assert graph.simplified[rule] >= 1, graph.simplified
    assert graph.history == [("traced", len(raw.nodes)), ("simplify", len(graph.nodes))]


def test_stop_gradient_goes_after_autodiff_has_used_it():
    w = lamina.Variable(A, name="w_stop")
    step = loss_and_gradients(lambda x: ops.sum(ops.stop_gradient(w * x) * w), w)
    raw, graph = assert_shrinks(step, tensors(B), ["simplify"], by=1)
    assert op_counts(graph)["stop_gradient"] == 0
    np.testing.assert_allclose(step(ops.convert_to_tensor(B))[1].numpy(), A * B, rtol=1e-6)


def test_trivial_reduction_becomes_a_view():
    _, graph = compare(lambda c: ops.exp(ops.sum(c, axis=1)), tensors(COL), ["simplify"])
    assert op_counts(graph)["sum"] == 0 and op_counts(graph)["reshape"] == 1


def test_lossy_cast_chains_stay():
    fn = lambda x: ops.cast(ops.cast(x * 1000.5, "float16"), "float32")   # noqa: E731
    raw, graph = compare(fn, tensors(A), ["simplify"])
    assert op_counts(graph)["cast"] == 2 and not graph.simplified
    fn = lambda i: ops.cast(ops.cast(i * 40000, "float32"), "int32")      # noqa: E731
    raw, graph = compare(fn, [ops.convert_to_tensor(np.array([1001, 1003], "int64"))],
                         ["simplify"])
    assert op_counts(graph)["cast"] == 2


def test_identities_on_graph_outputs_do_not_return_the_input_buffer():
    x = ops.convert_to_tensor(A)
    compiled = lamina.jit(lambda t: t * 1.0, passes=["simplify"])
    result = compiled(x)
    np.testing.assert_array_equal(result.numpy(), A)
    assert result.data is not x.data


def test_rules_never_touch_random_ops():
    seeds = lamina.random.SeedGenerator(3)

    def fn(x):
        noise = ops.random_uniform((2, 3), seed=seeds)
        return ops.exp(op("reshape", noise, shape=(2, 3)) * 1.0 + x)
    x = ops.convert_to_tensor(A)
    raw = lamina.jit(fn, passes=[]).trace(x)
    graph = lamina.jit(fn, passes=["simplify"]).trace(x)
    assert op_counts(raw)["random_uniform"] == op_counts(graph)["random_uniform"] == 1
    assert len(graph.nodes) == len(raw.nodes) - 2


def test_log_softmax_is_stable_where_log_of_softmax_underflows():
    x = ops.convert_to_tensor(np.array([[0.0, -200.0]], "float32"))
    compiled = lamina.jit(lambda t: ops.log(ops.softmax(t)), passes=["simplify"])
    np.testing.assert_allclose(compiled(x).numpy(), [[0.0, -200.0]], rtol=1e-6)
    with np.errstate(divide="ignore"):
        assert np.isinf(ops.log(ops.softmax(x)).numpy()[0, 1])  # eager underflows


def test_mlp_training_keeps_its_numbers_with_simplify():
    raw, graph = assert_training_keeps_numbers(["simplify"])
    assert len(graph.nodes) < len(raw.nodes) - 20


# A transposed view read by a matmul: the rule would hand the matmul the view (Fortran
# order) where eager mode computed a C-ordered array, and BLAS would round the product
# differently (graph/layout.py). (rule, the transposed view -> an expression of it)
LAYOUT_CASES = [
    ("multiply_by_one", lambda t: t * 1.0),
    ("add_zero", lambda t: t + 0.0),
    ("double_negation", lambda t: -(-t)),
    ("identity_cast", lambda t: op("cast", t, dtype="float32")),
    ("reshape_chain", lambda t: ops.reshape(ops.reshape(t, (35,)), (7, 5))),
    ("trivial_reduction", lambda t: ops.sum(ops.expand_dims(t, 0), axis=0)),
]


@pytest.mark.parametrize("rule,expression", LAYOUT_CASES, ids=[c[0] for c in LAYOUT_CASES])
def test_rules_keep_the_layout_a_matmul_reads(rule, expression):
    w = lamina.Variable(R.standard_normal((5, 7)).astype("float32"), name="w_layout")
    x = ops.convert_to_tensor(R.standard_normal((1, 7)).astype("float32"))

    def view(x):                       # declines: the matmul would read w's transpose
        return ops.matmul(x, expression(ops.transpose(w)))

    def computed(x):                   # fires: exp writes a C-ordered array
        return ops.matmul(x, expression(ops.exp(ops.transpose(w))))
    for fn, fires in ((view, False), (computed, True)):
        compiled = lamina.jit(fn, passes=["simplify"])
        np.testing.assert_array_equal(compiled(x).numpy(), fn(x).numpy())
        assert (compiled.trace(x).simplified[rule] >= 1) == fires, fn.__name__
