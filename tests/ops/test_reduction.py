import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.errors import DTypeError, ShapeError
from lamina.graph import SymbolicTensor
from tests.harness import case, distinct, rand, run_case


def positive(*shape):
    return rand(*shape, low=0.5, high=1.5)


def np_logsumexp(x, axis=None, keepdims=False):
    m = np.max(x, axis=axis, keepdims=True)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


_d34 = distinct(3, 4)
_d234 = distinct(2, 3, 4)

CASES = [
    case("sum", ops.sum, np.sum, [rand(3, 4)], second_order=True),
    case("sum", lambda x: ops.sum(x, axis=1), lambda x: x.sum(axis=1), [rand(3, 4)],
         second_order=True, label="axis"),
    case("sum", lambda x: ops.sum(x, axis=(0, 2), keepdims=True),
         lambda x: x.sum(axis=(0, 2), keepdims=True), [rand(2, 3, 4)], label="tuple-keepdims"),
    case("sum", lambda x: ops.sum(x, axis=-1), lambda x: x.sum(axis=-1), [rand(2, 70)],
         label="trailing-matmul-path"),
    case("sum", lambda x: ops.sum(x, axis=(0, 1)), lambda x: x.sum(axis=(0, 1)),
         [rand(3, 2, 4)], label="leading-matmul-path"),
    case("sum", lambda x: ops.sum(x, axis=1), lambda x: x.sum(axis=1),
         [np.arange(12, dtype=np.int32).reshape(3, 4)], grad=False, label="int"),
    case("mean", ops.mean, np.mean, [rand(3, 4)], second_order=True),
    case("mean", lambda x: ops.mean(x, axis=(-1, 0), keepdims=True),
         lambda x: x.mean(axis=(0, 2), keepdims=True), [rand(2, 3, 4)], second_order=True,
         label="tuple-keepdims"),
    case("mean", lambda x: ops.mean(x, axis=0), lambda x: x.mean(axis=0), [rand(4, 3)],
         label="leading"),
    case("max", ops.max, np.max, [_d34]),
    case("max", lambda x: ops.max(x, axis=1), lambda x: x.max(axis=1), [_d234],
         label="axis"),
    case("max", lambda x: ops.max(x, axis=(0, 2), keepdims=True),
         lambda x: x.max(axis=(0, 2), keepdims=True), [_d234], label="tuple-keepdims"),
    case("max", lambda x: ops.max(x, axis=0, initial=0.1),
         lambda x: np.max(x, axis=0, initial=0.1), [distinct(3, 4, low=-1.0, high=0.7)],
         label="initial"),
    case("min", ops.min, np.min, [_d34]),
    case("min", lambda x: ops.min(x, axis=-1, keepdims=True),
         lambda x: x.min(axis=-1, keepdims=True), [_d234], label="axis-keepdims"),
    case("prod", ops.prod, np.prod, [positive(2, 3)]),
    case("prod", lambda x: ops.prod(x, axis=0), lambda x: x.prod(axis=0),
         [rand(3, 4, low=0.5, high=2.0) * np.sign(rand(3, 4))], second_order=True,
         label="axis-mixed-signs"),
    case("prod", lambda x: ops.prod(x, axis=1, keepdims=True),
         lambda x: x.prod(axis=1, keepdims=True), [np.arange(1, 7, dtype=np.int32).reshape(2, 3)],
         grad=False, label="int"),
    case("var", ops.var, np.var, [rand(3, 4)], second_order=True),
    case("var", lambda x: ops.var(x, axis=1, keepdims=True),
         lambda x: np.var(x, axis=1, keepdims=True), [rand(3, 5)], label="axis"),
    case("std", ops.std, np.std, [rand(3, 4)]),
    case("std", lambda x: ops.std(x, axis=(0, 1)), lambda x: np.std(x, axis=(0, 1)),
         [rand(3, 4, 2)], label="axes"),
    case("argmax", ops.argmax, np.argmax, [_d34], grad=False),
    case("argmax", lambda x: ops.argmax(x, axis=1), lambda x: np.argmax(x, axis=1), [_d234],
         grad=False, label="axis"),
    case("argmax", lambda x: ops.argmax(x, axis=-1, keepdims=True),
         lambda x: np.argmax(x, axis=-1, keepdims=True), [_d234], grad=False,
         label="keepdims"),
    case("argmin", ops.argmin, np.argmin, [_d34], grad=False),
    case("argmin", lambda x: ops.argmin(x, axis=0, keepdims=True),
         lambda x: np.argmin(x, axis=0, keepdims=True), [_d234], grad=False,
         label="axis-keepdims"),
    case("logsumexp", ops.logsumexp, np_logsumexp, [rand(3, 4)], second_order=True),
    case("logsumexp", lambda x: ops.logsumexp(x, axis=1),
         lambda x: np_logsumexp(x, axis=1), [rand(2, 3, 4, low=-3, high=3)], label="axis"),
    case("logsumexp", lambda x: ops.logsumexp(x, axis=(0, 2), keepdims=True),
         lambda x: np_logsumexp(x, axis=(0, 2), keepdims=True), [rand(2, 3, 4)],
         label="keepdims"),
    case("any", lambda x: ops.any(x > 0.5, axis=1), lambda x: np.any(x > 0.5, axis=1),
         [rand(4, 3)], grad=False),
    case("any", ops.any, np.any, [np.array([0.0, 0.0, 2.0])], grad=False, label="float"),
    case("all", lambda x: ops.all(x > -0.5, axis=0, keepdims=True),
         lambda x: np.all(x > -0.5, axis=0, keepdims=True), [rand(4, 3)], grad=False),
    case("all", ops.all, np.all, [np.array([1.0, 2.0, 0.0])], grad=False, label="float"),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


def t(values, dtype="float64"):
    return ops.convert_to_tensor(np.asarray(values, dtype=dtype))


def grad_of(fn, x):
    with lamina.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return tape.gradient(y, x)


def test_mean_of_integers_is_floatx(backend):
    y = ops.mean(t([1, 2, 4], "int32"))
    assert y.dtype == "float32"
    np.testing.assert_allclose(y.numpy(), 7 / 3, rtol=1e-6)
    assert ops.var(t([1, 3], "int64")).dtype == "float32"
    assert ops.logsumexp(t([0, 0], "int32")).dtype == "float32"


def test_integer_sums_keep_their_dtype_and_bools_count_in_int32(backend):
    assert ops.sum(t([1, 2, 3], "int32")).dtype == "int32"
    assert ops.sum(t([1, 2, 3], "uint8")).dtype == "uint8"
    count = ops.sum(t([True, False, True], "bool"))
    assert count.dtype == "int32" and int(count) == 2
    assert ops.prod(t([True, True], "bool")).dtype == "int32"
    assert ops.prod(t([2, 3], "int32"), dtype="float64").dtype == "float64"


def test_max_gradient_splits_ties_evenly(backend):
    x = t([[1.0, 3.0, 3.0], [2.0, 0.0, 2.0]])
    np.testing.assert_allclose(grad_of(lambda v: ops.sum(ops.max(v, axis=1)), x).numpy(),
                               [[0, 0.5, 0.5], [0.5, 0, 0.5]])
    np.testing.assert_allclose(grad_of(lambda v: ops.min(v), x).numpy(),
                               [[0, 0, 0], [0, 1, 0]])


def test_max_of_an_empty_axis_names_the_axis(backend):
    with pytest.raises(ShapeError, match=r"max: cannot reduce over axis 1 of size 0; "
                                         r"received shape \(2, 0\)"):
        ops.max(ops.zeros((2, 0)), axis=1)
    with pytest.raises(ShapeError, match=r"argmin: cannot reduce over axis 0 of size 0"):
        ops.argmin(ops.zeros((0,)))


def test_max_of_bools_points_to_any(backend):
    with pytest.raises(DTypeError, match=r"max: argument 'x' must be numeric; received dtype "
                                          r"bool \(use lamina.ops.any\)"):
        ops.max(t([True, False], "bool"))
    with pytest.raises(DTypeError, match=r"lamina.ops.all"):
        ops.min(t([True], "bool"))


def test_axis_errors_name_the_op(backend):
    x = ops.zeros((2, 3))
    with pytest.raises(ShapeError, match=r"sum: argument 'axis' must be in \[-2, 2\) for an "
                                         r"input of rank 2; received 2"):
        ops.sum(x, axis=2)
    with pytest.raises(ShapeError, match=r"mean: argument 'axis' repeats an axis"):
        ops.mean(x, axis=(1, -1))
    with pytest.raises(TypeError, match=r"argmax: argument 'axis' must be an int"):
        ops.argmax(x, axis=(0, 1))


def test_mean_op_called_directly_rejects_integers(backend):
    with pytest.raises(DTypeError, match=r"mean: argument 'x' must be a floating-point tensor;"
                                         r" received dtype int32"):
        ops.OP_REGISTRY["mean"](t([1, 2], "int32"), axis=None, keepdims=False)


def test_argmax_is_int32_without_gradient(backend):
    x = t([[0.1, 0.9], [0.7, 0.2]])
    i = ops.argmax(x, axis=1)
    assert i.dtype == "int32"
    np.testing.assert_array_equal(i.numpy(), [1, 0])
    assert ops.argmax(t(5.0)).shape == ()
    assert ops.argmax(x, keepdims=True).shape == (1, 1)
    assert int(ops.argmax(x)) == 1
    with lamina.GradientTape() as tape:
        tape.watch(x)
        y = ops.cast(ops.argmax(x), "float64") * ops.sum(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), np.ones((2, 2)))


def test_empty_axis_tuple_is_the_identity(backend):
    x = t([[1.0, 2.0]])
    assert ops.sum(x, axis=()) is x
    np.testing.assert_array_equal(ops.var(x, axis=()).numpy(), [[0.0, 0.0]])
    assert ops.any(x, axis=()).dtype == "bool"


def test_logsumexp_is_stable(backend):
    x = t([[1000.0, 1001.0, 1002.0], [-1000.0, -1000.0, -1001.0]], "float32")
    y = ops.logsumexp(x, axis=1).numpy()
    assert np.isfinite(y).all()
    np.testing.assert_allclose(y, [1002.4076059644, -999.1380052], rtol=1e-6)
    inf = t([[-np.inf, -np.inf], [np.inf, 0.0]])
    with np.errstate(divide="ignore"):       # log(0) = -inf is the right answer here
        np.testing.assert_array_equal(ops.logsumexp(inf, axis=1).numpy(), [-np.inf, np.inf])


def test_logsumexp_gradient_is_softmax(backend):
    x = t([[1000.0, 1001.0, 1002.0], [0.5, -0.5, 0.0]])
    g = grad_of(lambda v: ops.sum(ops.logsumexp(v, axis=1)), x).numpy()
    e = np.exp(x.numpy() - x.numpy().max(axis=1, keepdims=True))
    np.testing.assert_allclose(g, e / e.sum(axis=1, keepdims=True), rtol=1e-12)


def test_float32_forward_of_var_and_std(backend):
    x = rand(5, 7)
    x32 = ops.convert_to_tensor(x, dtype="float32")
    np.testing.assert_allclose(ops.var(x32, axis=0).numpy(), np.var(x, axis=0), rtol=1e-5)
    np.testing.assert_allclose(ops.std(x32).numpy(), np.std(x), rtol=1e-5)


@pytest.mark.parametrize("shape,axis", [((50, 8), 0), ((6, 5, 4), (0, 1)), ((3, 100), 1),
                                        ((2, 3, 40), (1, 2)), ((4, 5, 6), 1), ((7,), 0)])
@pytest.mark.parametrize("fn", ["sum", "mean"])
def test_reduce_kernel_matches_numpy_on_every_path(shape, axis, fn, backend):
    x = rand(*shape).astype(np.float32)
    b = lamina.backend.get_backend()
    for keepdims in (False, True):
        got = b.to_host(b.reduce(fn, b.asarray(x), axis, keepdims))
        want = getattr(np, fn)(x.astype(np.float64), axis=axis, keepdims=keepdims)
        assert got.shape == want.shape and got.dtype == np.float32
        # float32 rounding grows with the magnitudes summed, not with the (cancelled) result
        size = getattr(np, fn)(np.abs(x).astype(np.float64), axis=axis, keepdims=keepdims)
        np.testing.assert_array_less(np.abs(got - want), 2e-6 * size + 1e-6)


def test_reduce_kernel_writes_into_out(backend):
    b = lamina.backend.get_backend()
    x = b.asarray(rand(80, 3))
    out = b.empty((3,), "float64")
    result = b.reduce("sum", x, (0,), False, out=out)
    assert result is out
    np.testing.assert_allclose(b.to_host(out), b.to_host(x).sum(axis=0))
    out = b.empty((80,), "float64")
    assert b.reduce("max", x, (1,), False, out=out) is out


def test_reductions_of_symbolic_tensors_give_specs():
    x = SymbolicTensor((None, 3, 4), "float32")
    assert ops.sum(x, axis=1).shape == (None, 4)
    assert ops.mean(x, axis=(1, 2), keepdims=True).shape == (None, 1, 1)
    assert ops.max(x, axis=-1).shape == (None, 3)
    assert ops.argmax(x, axis=1).dtype == "int32"
    assert ops.logsumexp(x, axis=-1).shape == (None, 3)
    assert ops.any(x, axis=0).dtype == "bool"


def test_mean_gradient_of_an_unknown_size_counts_at_run_time():
    from lamina.core.op import Context
    x = SymbolicTensor((None, 3), "float32")
    ctx = Context((x,), (SymbolicTensor((3,), "float32"),), {"axis": (0,), "keepdims": False},
                  (True,))
    (gx,) = ops.OP_REGISTRY["mean"].gradient(ctx, SymbolicTensor((3,), "float32"))
    assert gx.shape == (None, 3) and gx.node.op.name == "broadcast_to"
