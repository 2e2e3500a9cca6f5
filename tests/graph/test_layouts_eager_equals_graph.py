"""Graph mode gives eager mode's bits where the two used to lay a value out differently.

numpy lays a new array out as its inputs are: a cast or an elementwise op of a transposed
view comes out in Fortran order. A graph plan writes the same op into a C-ordered buffer.
The numbers are equal, but BLAS sums a matrix product in another order for another operand
layout, so the matmul reading the value rounded differently (fuzzer seed 15 with float32
LoRA factors in a float64 model: the factors' gradient is a cast of a transposed float64
gradient; the minimal repro below differed by 4.8e-7). Every mode now gives such results
in C order (``lamina.core.op.c_ordered``), and the simplify pass keeps layouts where it
hands back another value (``lamina/graph/layout.py``).
"""
import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.graph.executor import Plan
from tests.graph.passes.jit_compare import op_counts


def _assert_bit_equal(got, want):
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g.numpy(), w.numpy())


def _lora_step(factors, model, transposed):
    """The gradient of a loss through ``x @ cast(a @ b)`` (``transpose``d or not) with
    respect to both factors, as a LoRA layer whose factors' dtype is not the model's."""
    rng = np.random.default_rng(0)
    a = lamina.Variable(rng.standard_normal((5, 1)).astype(factors))
    b = lamina.Variable(rng.standard_normal((1, 3)).astype(factors))
    x = rng.standard_normal((6, 4, 3 if transposed else 5)).astype(model)
    w = rng.standard_normal((6, 4, 5 if transposed else 3)).astype(model)

    def step(x, w):
        with lamina.GradientTape() as tape:
            delta = ops.cast(ops.matmul(a, b), model)
            y = ops.matmul(x, ops.transpose(delta) if transposed else delta)
            loss = ops.sum(ops.multiply(y, w))
        return tape.gradient(loss, [a, b])
    return step, (ops.convert_to_tensor(x), ops.convert_to_tensor(w))


def test_the_fuzzers_repro_gives_eagers_bits():
    """The repro as reported: b starts at zeros, only its gradient is asked for."""
    rng = np.random.default_rng(0)
    a = lamina.Variable(rng.standard_normal((5, 1)).astype("float32"))
    b = lamina.Variable(np.zeros((1, 3), "float32"))
    x, w = rng.standard_normal((6, 4, 3)), rng.standard_normal((6, 4, 5))

    def f(x):
        with lamina.GradientTape() as tape:
            y = ops.matmul(x, ops.transpose(ops.cast(ops.matmul(a, b), "float64")))
            loss = ops.sum(ops.multiply(y, w))
        return tape.gradient(loss, [b])[0]
    eager = f(x).numpy()
    for passes in (None, []):
        np.testing.assert_array_equal(lamina.jit(f, passes=passes)(x).numpy(), eager)


@pytest.mark.parametrize("transposed", [True, False], ids=["transposed", "plain"])
@pytest.mark.parametrize("factors,model", [("float32", "float64"), ("float32", "float16"),
                                           ("float64", "float32")])
def test_lora_factors_in_another_dtype_give_eagers_gradients(factors, model, transposed):
    step, args = _lora_step(factors, model, transposed)
    eager = step(*args)
    _assert_bit_equal(lamina.jit(step)(*args), eager)
    _assert_bit_equal(lamina.jit(step, passes=[])(*args), eager)


@pytest.mark.parametrize("make", [lambda t: ops.exp(t), lambda t: ops.cast(t, "float64"),
                                  lambda t: t * 1.5], ids=["exp", "cast", "scaled"])
def test_an_op_of_a_transposed_view_feeds_a_matmul_with_eagers_layout(make):
    """Forward only: the value a matmul reads is computed from a transposed view."""
    rng = np.random.default_rng(1)
    w = lamina.Variable(rng.standard_normal((5, 7)).astype("float32"))
    x = ops.convert_to_tensor(rng.standard_normal((1, 7)).astype("float64"))

    def f(x):
        value = make(ops.transpose(w))
        return ops.matmul(ops.cast(x, value.dtype), value)
    eager = f(x)
    _assert_bit_equal([lamina.jit(f)(x)], [eager])


def test_a_plan_without_buffers_gives_the_planned_bits():
    """A call that finds the plan busy runs it without its buffers (``Plan.plain``): the
    results must not depend on which of the two ran."""
    step, args = _lora_step("float32", "float64", transposed=True)
    graph = lamina.jit(step).trace(*args)
    backend = lamina.backend.get_backend()
    arrays = [a.data for a in args]
    planned = Plan(graph, backend)(arrays)
    plain = Plan(graph, backend, memory_plan=False)(arrays)
    for p, q in zip(planned, plain):
        np.testing.assert_array_equal(p, q)


def test_a_folded_cast_of_a_transposed_constant_keeps_eagers_layout():
    """Shape-only values (``full_like``) fold into constants, and so does what is computed
    from them: the folded cast must be C-ordered as eager mode's is."""
    rng = np.random.default_rng(2)
    x = ops.convert_to_tensor(rng.standard_normal((1, 40)).astype("float64"))
    like = ops.convert_to_tensor(np.zeros((5, 40), "float32"))

    def f(x, like):
        filled = ops.exp(ops.full_like(like, 0.1)) + ops.sin(ops.full_like(like, 0.7))
        return ops.matmul(x, ops.cast(ops.transpose(filled), "float64"))
    compiled = lamina.jit(f, passes=["constant_fold"])
    _assert_bit_equal([compiled(x, like)], [f(x, like)])
    assert dict(op_counts(compiled.trace(x, like))) == {"matmul": 1}     # all folded


def test_multiplying_a_transposed_view_by_one_stays_where_a_matmul_reads_it():
    """``t * 1`` is ``t``, but the product is C-ordered and ``t`` is not: simplify keeps
    the multiply where a matmul reads it, and drops it where only elementwise ops do."""
    rng = np.random.default_rng(3)
    w = lamina.Variable(rng.standard_normal((5, 7)).astype("float32"))
    x = ops.convert_to_tensor(rng.standard_normal((1, 7)).astype("float32"))

    def product(x):
        return ops.matmul(x, ops.transpose(w) * 1.0)

    def elementwise(x):
        return ops.exp(ops.transpose(w) * 1.0) + x[0, 0]
    for fn, multiplies in ((product, 1), (elementwise, 0)):
        compiled = lamina.jit(fn, passes=["simplify"])
        _assert_bit_equal([compiled(x)], [fn(x)])
        assert op_counts(compiled.trace(x))["multiply"] == multiplies


def test_eager_results_of_ops_that_write_out_are_c_ordered():
    t = ops.transpose(ops.convert_to_tensor(np.ones((3, 4), "float32")))
    assert not t.data.flags.c_contiguous                     # a view, as numpy's
    for value in (ops.cast(t, "float64"), ops.exp(t), t + 1.0, ops.where(t > 0, t, 0.0)):
        assert value.data.flags.c_contiguous
