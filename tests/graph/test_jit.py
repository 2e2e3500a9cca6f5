"""lamina.jit: a traced function computes what the eager one computes."""
import numpy as np
import pytest

import lamina
from lamina import ops


def test_jit_matches_eager_and_traces_once_per_signature(backend):
    w = lamina.Variable(np.arange(6, dtype="float32").reshape(3, 2), name="w")

    def f(x):
        return ops.sum(ops.tanh(ops.matmul(x, w)) * 2.0, axis=1)
    compiled = lamina.jit(f)
    x = ops.convert_to_tensor(np.linspace(-1, 1, 12, dtype="float32").reshape(4, 3))
    np.testing.assert_allclose(compiled(x).numpy(), f(x).numpy(), rtol=1e-6)
    compiled(x)
    assert compiled.trace_count == 1
    compiled(ops.ones((5, 3)))
    assert compiled.trace_count == 2


def test_variables_are_read_when_the_graph_runs_not_when_traced():
    w = lamina.Variable([1.0, 2.0], name="w_read")
    compiled = lamina.jit(lambda x: x * w)
    x = ops.ones((2,))
    np.testing.assert_allclose(compiled(x).numpy(), [1.0, 2.0])
    w.assign([5.0, 6.0])
    np.testing.assert_allclose(compiled(x).numpy(), [5.0, 6.0])


def test_assignments_are_updates_applied_in_place():
    v = lamina.Variable([1.0, 1.0], name="v_upd")
    buffer = v.data

    @lamina.jit
    def step(x):
        v.assign_add(x)
        v.assign(v * 2.0)               # reads the value assigned just before
        return ops.sum(v)
    out = step(ops.ones((2,)))
    np.testing.assert_allclose(v.numpy(), [4.0, 4.0])
    np.testing.assert_allclose(out.numpy(), 8.0)
    step(ops.ones((2,)))
    np.testing.assert_allclose(v.numpy(), [10.0, 10.0])
    assert v.data is buffer


def test_gradient_tape_inside_jit_differentiates_the_graph():
    w = lamina.Variable([[1.0], [2.0]], name="w_grad")

    @lamina.jit
    def step(x, y):
        with lamina.GradientTape() as tape:
            loss = ops.mean(ops.square(ops.matmul(x, w) - y))
        (g,) = tape.gradient(loss, [w])
        w.assign_sub(g * 0.1)
        return loss
    x = np.array([[1.0, 2.0], [3.0, 4.0]], "float32")
    y = np.array([[1.0], [0.0]], "float32")
    eager_w = np.array([[1.0], [2.0]], "float32")
    for _ in range(3):
        loss = step(ops.convert_to_tensor(x), ops.convert_to_tensor(y))
        residual = x @ eager_w - y
        np.testing.assert_allclose(loss.numpy(), np.mean(residual ** 2), rtol=1e-6)
        eager_w = eager_w - 0.1 * (2 * x.T @ residual / 2)
        np.testing.assert_allclose(w.numpy(), eager_w, rtol=1e-5)


def test_python_control_flow_on_values_cannot_be_traced():
    @lamina.jit
    def f(x):
        return x if ops.sum(x) > 0 else -x
    with pytest.raises(TypeError, match=r"symbolic tensor has no truth value"):
        f(ops.ones((2,)))


@pytest.mark.parametrize("method", ["assign_add", "assign_sub"])
def test_assign_add_casts_a_wider_delta_first_as_eager_does(method):
    """Eager (and Keras) cast the delta to the variable's dtype, then add; a traced
    assign_add must round the same way (the fuzzer found float64 deltas ~3e-8 off)."""
    start = np.array([[1., 2.], [3., 4.]], "float32") / 3
    x = ops.convert_to_tensor(np.full((2, 2), 1 / 7, "float64"))
    results = []
    for compiled in (False, True):
        v = lamina.Variable(start, dtype="float32")

        def step(x):
            getattr(v, method)(ops.ones_like(v) * x[0, 0])
            return ops.sum(v)
        (lamina.jit(step) if compiled else step)(x)
        results.append(v.numpy())
    sign = 1 if method == "assign_add" else -1
    np.testing.assert_array_equal(results[0], start + sign * np.float32(1 / 7))
    np.testing.assert_array_equal(results[1], results[0])


def test_an_op_returning_a_tuple_of_one_is_unpacked_in_a_graph():
    """The split op with one piece (and scan_grad for one variable) returns a 1-tuple: the
    plan must unpack it, or the next op reads a (1, ...) array (the fuzzer's seed 1015
    crashed on the memory plan's out buffer; without it the shape was silently wrong)."""
    def f(x):
        (piece,) = ops.OP_REGISTRY["split"](x, sizes=(3,), axis=1)
        return ops.exp(piece) + 1.0
    x = np.arange(3, dtype="float32").reshape(1, 3)
    expected = np.exp(x) + 1.0
    np.testing.assert_allclose(f(ops.convert_to_tensor(x)).numpy(), expected, rtol=1e-6)
    for passes in (None, []):
        got = lamina.jit(f, passes=passes)(x).numpy()
        assert got.shape == (1, 3)
        np.testing.assert_allclose(got, expected, rtol=1e-6)
