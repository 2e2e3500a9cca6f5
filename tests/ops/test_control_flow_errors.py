"""Every raise of the control-flow functions, with its message (eager and traced)."""
import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.errors import DTypeError, ShapeError
from lamina.ops.control_flow import While
from lamina.ops.while_grad import WhileGrad


def _t(x, dtype="float32"):
    return ops.convert_to_tensor(np.asarray(x, dtype=dtype))


X = _t([0.5, 1.0, 1.5])


def _jit(fn, *args):
    return lamina.jit(fn)(*args)


# ------------------------------------------------------------------------------- cond
def test_cond_branches_must_agree_in_structure_shape_and_dtype():
    with pytest.raises(ValueError, match=r"cond: true_fn and false_fn must return outputs of "
                                         r"the same structure, shapes and dtypes; received "
                                         r"\(3,\) float32 and \[\(3,\) float32, \(3,\) float32\]"):
        _jit(lambda x: ops.cond(x[0] > 0, lambda: x, lambda: [x, x]), X)
    with pytest.raises(ValueError, match=r"cond: .* received \(3,\) float32 and \(2,\) float32"):
        _jit(lambda x: ops.cond(x[0] > 0, lambda: x, lambda: x[:2]), X)
    with pytest.raises(ValueError, match=r"received \(3,\) float32 and \(3,\) int32"):
        _jit(lambda x: ops.cond(x[0] > 0, lambda: x, lambda: ops.cast(x, "int32")), X)


def test_cond_predicate_must_be_a_scalar():
    with pytest.raises(ShapeError, match=r"cond: argument 'pred' must be a scalar; received "
                                         r"shape \(3,\)"):
        _jit(lambda x: ops.cond(x > 0, lambda: x, lambda: x), X)


# ----------------------------------------------------------------------------- switch
def test_switch_needs_callable_branches_and_a_scalar_index():
    with pytest.raises(ValueError, match="switch: argument 'branches' must be a non-empty "
                                         "sequence of callables; received"):
        ops.switch(0, [], X)
    with pytest.raises(ValueError, match="switch: argument 'branches'"):
        ops.switch(0, [lambda a: a, 3], X)
    with pytest.raises(ShapeError, match=r"switch: argument 'index' must be a scalar; "
                                         r"received shape \(2,\)"):
        _jit(lambda i, x: ops.switch(i, [lambda a: a], x), _t([0, 1], "int32"), X)
    with pytest.raises(ValueError, match="switch: every branch must return outputs of the same"):
        _jit(lambda i, x: ops.switch(i, [lambda a: a, lambda a: (a,)], x),
             _t(0, "int32"), X)


# ------------------------------------------------------------------------- while_loop
@pytest.mark.parametrize("traced", [False, True], ids=["eager", "graph"])
def test_while_loop_body_must_keep_the_loop_vars(traced):
    def run(fn):
        return _jit(fn, X) if traced else fn(X)
    with pytest.raises(ValueError, match=r"while_loop: the loop_vars body returns must keep "
                                         r"the structure of its input; received "
                                         r"\(\(3,\) float32, \(3,\) float32\) for \(\(3,\) "
                                         r"float32,\)"):
        run(lambda x: ops.while_loop(lambda a: ops.sum(a) < 9, lambda a: (a, a), (x,)))
    with pytest.raises(ShapeError, match="while_loop: the loop_vars body returns must keep "
                                         "the shapes of its input"):
        run(lambda x: ops.while_loop(lambda a: ops.sum(a) < 9,
                                     lambda a: ops.concatenate([a, a]), x))
    with pytest.raises(DTypeError, match="while_loop: the loop_vars body returns must keep "
                                         "the dtypes of its input"):
        run(lambda x: ops.while_loop(lambda a: ops.sum(a) < 9,
                                     lambda a: ops.cast(a, "float64"), x))
    with pytest.raises(ValueError, match="while_loop: body must return a tuple or list like "
                                         "loop_vars; received"):
        run(lambda x: ops.while_loop(lambda a, b: ops.sum(a) < 9, lambda a, b: a, (x, x)))


def test_while_loop_condition_and_bound_are_checked():
    with pytest.raises(ShapeError, match=r"while_loop: cond must return a scalar; received "
                                         r"shape \(3,\)"):
        _jit(lambda x: ops.while_loop(lambda a: a < 9, lambda a: a * 2, x), X)
    for bad in (-1, 2.5, True, _t(3.0), _t([1, 2], "int32")):
        with pytest.raises(ValueError, match="while_loop: argument 'maximum_iterations' must "
                                             "be a non-negative int known when the loop is "
                                             "built, or None; received"):
            ops.while_loop(lambda a: a < 9, lambda a: a * 2, 1.0, maximum_iterations=bad)


def test_an_unbounded_traced_while_loop_cannot_write_variables_or_draw_random_numbers():
    v = lamina.Variable(np.zeros(3, "float32"))

    def writes(x):
        def body(a):
            v.assign_add(a)
            return a * 2
        return ops.while_loop(lambda a: ops.sum(a) < 9, body, x)
    with pytest.raises(ValueError, match="while_loop: a body or cond that assigns variables "
                                         "cannot run as a traced loop without a bound; pass "
                                         "maximum_iterations"):
        _jit(writes, X)

    def draws(x):
        return ops.while_loop(lambda a: ops.sum(a) < 9,
                              lambda a: a * 2 + lamina.random.dropout(a, 0.5, seed=1), x)
    # An unknown batch size: the mask is drawn per step, inside the loop body.
    with pytest.raises(ValueError, match="while_loop: a body or cond that draws random "
                                         "numbers cannot run as a traced loop without a "
                                         "bound; pass maximum_iterations"):
        draws(lamina.Input((3,)))


def test_while_nodes_check_their_input_counts():
    from lamina.core.symbolic import SymbolicTensor
    from lamina.ops.step_body import capture_step
    a = SymbolicTensor((3,), "float32")
    body, _ = capture_step([], [a], [ops.multiply(a, 2.0)], [])
    c = SymbolicTensor((3,), "float32")
    cond, _ = capture_step([], [], [], [ops.sum(c) < 9], constants=[c])
    with pytest.raises(ValueError, match="while: expected 1 loop variables, 1 values of the "
                                         "condition and 0 of the body; received 1 inputs"):
        While(X, cond=cond, body=body, n_cond=1)
    with pytest.raises(ValueError, match="while_grad: expected the loop's 2 inputs and 1 "
                                         "cotangents; received 2 inputs"):
        WhileGrad(X, X, cond=cond, body=body, n_cond=1, wrt=(0,))
    with pytest.raises(ValueError, match=r"while_grad: attribute 'wrt' must name inputs in "
                                         r"\[0, 2\); received \(5,\)"):
        WhileGrad(X, X, X, cond=cond, body=body, n_cond=1, wrt=(5,))


# ------------------------------------------------------------------------------- scan
@pytest.mark.parametrize("traced", [False, True], ids=["eager", "graph"])
def test_scan_checks_its_step(traced):
    def run(fn):
        return _jit(fn, X) if traced else fn(X)
    with pytest.raises(TypeError, match="scan: f must return a pair \\(carry, y\\); received"):
        run(lambda x: ops.scan(lambda c, e: c + e, x[0], x))
    with pytest.raises(ValueError, match="scan: the carry f returns must keep the structure "
                                         "of its input"):
        run(lambda x: ops.scan(lambda c, e: ((c, c), e), x[0], x))
    with pytest.raises(ShapeError, match=r"scan: the carry f returns must keep the shapes of "
                                         r"its input; received \(2,\) float32 for \(\) float32"):
        run(lambda x: ops.scan(lambda c, e: (ops.stack([c, e]), e), x[0], x))


def test_scan_checks_its_arguments():
    with pytest.raises(ValueError, match="scan: give 'xs' or 'length'; received xs=None and "
                                         "length=None"):
        ops.scan(lambda c, x: (c, c), 0.0)
    with pytest.raises(ValueError, match=r"scan: argument 'length' \(4\) must equal the "
                                         r"leading size of 'xs' \(3\)"):
        ops.scan(lambda c, x: (c, c), 0.0, X, length=4)
    with pytest.raises(ValueError, match="scan: argument 'length' must be a non-negative int "
                                         "or None; received length=-1"):
        ops.scan(lambda c, x: (c, c), 0.0, length=-1)
    with pytest.raises(ShapeError, match=r"scan: every leaf of 'xs' must have the same "
                                         r"leading size; received shapes \(3,\), \(2,\)"):
        ops.scan(lambda c, x: (c, c), 0.0, (X, X[:2]))
    with pytest.raises(TypeError, match=r"scan: argument 'f' should be a callable\. "
                                        r"Received f=123"):
        ops.scan(123, 0.0, X)
    for bad in (0, -2, 1.5):
        with pytest.raises(ValueError, match="scan: argument 'unroll' must be a positive "
                                             "integer or a boolean; received unroll="):
            ops.scan(lambda c, x: (c, c), 0.0, X, unroll=bad)
    with pytest.raises(ValueError, match="scan: f must return y of the same structure at "
                                         "every step"):
        ops.scan(lambda c, x: (c + 1, [x] * int(c.numpy() + 1)), _t(0.0), X)


# -------------------------------------------------------------------- associative_scan
def test_associative_scan_checks_its_elements_and_f():
    with pytest.raises(ValueError, match="associative_scan: argument 'elems' must hold at "
                                         "least one tensor"):
        ops.associative_scan(lambda a, b: a, [])
    with pytest.raises(ShapeError, match=r"associative_scan: every leaf of 'elems' must have "
                                         r"the same first dimension along the scan axis 0; "
                                         r"received shapes \(3,\), \(2,\)"):
        ops.associative_scan(lambda a, b: a, (X, X[:2]))
    with pytest.raises(ValueError, match="associative_scan: f must return the structure of "
                                         "'elems'; received"):
        ops.associative_scan(lambda a, b: (a[0], b[0], a[1]), (X, X))


# --------------------------------------------------------------------- custom_gradient
def test_custom_gradient_checks_f_and_grad_fn():
    with pytest.raises(TypeError, match="custom_gradient: argument 'f' must be callable; "
                                        "received 3"):
        ops.custom_gradient(3)
    with pytest.raises(TypeError, match="custom_gradient: <lambda> must return a pair "
                                        r"\(output, grad_fn\) with a callable grad_fn"):
        ops.custom_gradient(lambda x: x * 2)(X)

    @ops.custom_gradient
    def two_args(x, y):
        return x * y, lambda upstream: upstream * y
    with pytest.raises(ValueError, match=r"custom_gradient: the grad_fn of two_args must "
                                         r"return one gradient per argument \(2\); received 1"):
        with lamina.GradientTape() as tape:
            tape.watch(X)
            y = ops.sum(two_args(X, X))
        tape.gradient(y, X)


# --------------------------------------------------------------------------- vectorize
def test_vectorize_checks_signature_arguments_and_outputs():
    with pytest.raises(ValueError, match=r"vectorize: argument 'signature' must be a gufunc "
                                         r"signature such as '\(m,n\),\(n\)->\(m\)'; received "
                                         r"signature='\(n\)'"):
        ops.vectorize(ops.sum, signature="(n)")
    with pytest.raises(ValueError, match="vectorize: argument 'excluded' may only hold "
                                         "positional indices"):
        ops.vectorize(ops.sum, excluded={"x"})
    summed = ops.vectorize(lambda a, b: ops.sum(a * b), signature="(n),(n)->()")
    with pytest.raises(TypeError, match=r"vectorize: the signature '\(n\),\(n\)->\(\)' takes "
                                        r"2 arguments; received 1"):
        summed(X)
    with pytest.raises(ShapeError, match=r"vectorize: inconsistent size for core dimension "
                                         r"'n': 2 and 3"):
        summed(X, X[:2])
    with pytest.raises(ShapeError, match=r"has fewer dimensions than its core dimensions"):
        ops.vectorize(lambda a: a, signature="(m,n)->(m,n)")(X)
    with pytest.raises(TypeError, match=r"vectorize: the signature '\(n\)->\(\),\(\)' gives 2 "
                                        r"outputs; the function returned 1"):
        ops.vectorize(lambda a: ops.sum(a), signature="(n)->(),()")(X)
    with pytest.raises(ShapeError, match=r"vectorize: an output of shape \(3,\) does not "
                                         r"match its core dimensions \(\)"):
        ops.vectorize(lambda a: a, signature="(n)->()")(X)
