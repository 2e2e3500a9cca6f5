import warnings

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.errors import DTypeError, ShapeError
from lamina.graph import SymbolicTensor
from tests.harness import case, rand, run_case


def np_log_softmax(x, axis=-1):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def np_softmax(x, axis=-1):
    return np.exp(np_log_softmax(x, axis))


_big = np.array([[1000.0, 1001.0, 1002.0], [-1000.0, -1000.0, -1001.0]])

CASES = [
    case("softmax", ops.softmax, np_softmax, [rand(3, 4)], second_order=True),
    case("softmax", lambda x: ops.softmax(x, axis=0), lambda x: np_softmax(x, 0),
         [rand(3, 4, low=-3, high=3)], second_order=True, label="axis-0"),
    case("softmax", lambda x: ops.softmax(x, axis=(1, 2)), lambda x: np_softmax(x, (1, 2)),
         [rand(2, 2, 3)], label="axes"),
    case("softmax", ops.softmax, np_softmax, [_big], second_order=True, label="large"),
    case("softmax", ops.softmax, np_softmax, [rand(5)], label="vector"),
    case("log_softmax", ops.log_softmax, np_log_softmax, [rand(3, 4)], second_order=True),
    case("log_softmax", lambda x: ops.log_softmax(x, axis=1), lambda x: np_log_softmax(x, 1),
         [rand(2, 3, 2, low=-3, high=3)], second_order=True, label="axis-1"),
    case("log_softmax", ops.log_softmax, np_log_softmax, [_big], second_order=True,
         label="large"),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


def t(values, dtype="float64"):
    return ops.convert_to_tensor(np.asarray(values, dtype=dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_extreme_inputs_give_no_nan_or_inf(dtype, backend):
    x = t([[1000.0, 1001.0, 1002.0], [-1000.0, -1000.0, -1000.0], [0.0, -np.inf, 1.0]], dtype)
    p = ops.softmax(x).numpy()
    assert p.dtype == dtype and np.isfinite(p).all()
    np.testing.assert_allclose(p.sum(axis=-1), 1.0, rtol=1e-3)
    np.testing.assert_allclose(p[1], [1 / 3] * 3, rtol=1e-3)
    assert p[2, 1] == 0
    logp = ops.log_softmax(x).numpy()
    assert np.isfinite(logp[:2]).all() and logp[2, 1] == -np.inf
    np.testing.assert_allclose(logp[0], np_log_softmax(np.array([0.0, 1.0, 2.0])), rtol=1e-3)


def test_gradients_at_extreme_inputs_are_finite(backend):
    x = t([[1000.0, 1001.0, 1002.0], [-1000.0, -1000.0, -1001.0]])
    w = t(rand(2, 3))
    for fn in (ops.softmax, ops.log_softmax):
        with lamina.GradientTape() as tape:
            tape.watch(x)
            y = ops.sum(fn(x) * w)
        g = tape.gradient(y, x).numpy()
        assert np.isfinite(g).all()
        np.testing.assert_allclose(g.sum(axis=-1), 0.0, atol=1e-12)


def test_integer_inputs_become_floatx(backend):
    assert ops.softmax(t([1, 2, 3], "int32")).dtype == "float32"
    assert ops.log_softmax(t([1, 2], "int64")).dtype == "float32"


def test_softmax_of_a_scalar_and_over_every_axis(backend):
    np.testing.assert_allclose(ops.softmax(t(3.0), axis=None).numpy(), 1.0)
    x = rand(2, 3)
    np.testing.assert_allclose(ops.softmax(t(x), axis=None).numpy(), np_softmax(x, None))


def test_errors(backend):
    with pytest.raises(ShapeError, match=r"softmax: argument 'axis' must be in \[-2, 2\) for "
                                         r"an input of rank 2; received 2"):
        ops.softmax(ops.zeros((2, 3)), axis=2)
    with pytest.raises(DTypeError, match=r"log_softmax: argument 'x' must be a floating-point "
                                         r"tensor; received dtype int32"):
        ops.OP_REGISTRY["log_softmax"](t([1], "int32"), axis=(0,))


def test_forward_writes_into_out(backend):
    b = lamina.backend.get_backend()
    x = b.asarray(rand(2, 3))
    for name, ref in (("softmax", np_softmax), ("log_softmax", np_log_softmax)):
        out = b.empty((2, 3), "float64")
        assert ops.OP_REGISTRY[name].forward(b, x, out=out, axis=(1,)) is out
        np.testing.assert_allclose(b.to_host(out), ref(b.to_host(x)), rtol=1e-12)


def test_symbolic_inputs_give_specs():
    x = SymbolicTensor((None, 10), "float32")
    assert ops.softmax(x).shape == (None, 10)
    assert ops.log_softmax(x, axis=0).dtype == "float32"


def test_softmax_over_an_axis_of_size_one_warns_as_keras(backend):
    with pytest.warns(UserWarning, match=r"softmax: You are using a softmax over axis 1 of a "
                                         r"tensor of shape \(1, 1\)\. This axis has size 1\. "
                                         r"The softmax operation will always return the value "
                                         r"1, which is likely not what you intended\. Did you "
                                         r"mean to use a sigmoid instead\?"):
        y = ops.softmax(np.array([[1.0]]), 1)
    assert y.numpy().tolist() == [[1.0]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ops.softmax(np.array([[1.0, 2.0]]), 1)
        ops.softmax(np.array([[1.0]]), (0, 1))         # a tuple of axes: no warning (Keras)
