"""array, copy, empty, empty_like, eye, identity, tri, linspace, logspace, geomspace,
meshgrid: numpy's values and Keras 3.15.1's dtype rules (fixtures computed with Keras)."""
import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.errors import ShapeError
from tests.harness import case, rand, run_case

CASES = [
    case("array", lambda x: ops.array(x), lambda x: x, [rand(2, 3)], grad=False),
    case("copy", ops.copy, np.copy, [rand(2, 3)]),
    case("empty", lambda: ops.empty((2, 3)), lambda: np.zeros((2, 3), np.float32), [],
         grad=False, graph=False),
    case("empty_like", ops.empty_like, np.zeros_like, [rand(2, 3)], grad=False),
    case("eye", lambda: ops.eye(3, 4, k=1), lambda: np.eye(3, 4, 1, dtype=np.float32), [],
         grad=False, graph=False),
    case("identity", lambda: ops.identity(3, dtype="int32"),
         lambda: np.identity(3, dtype=np.int32), [], grad=False, graph=False),
    case("tri", lambda: ops.tri(2, 3, k=-1, dtype="int32"),
         lambda: np.array([[0, 0, 0], [1, 0, 0]], np.int32), [], grad=False, graph=False),
    case("linspace", lambda a, b: ops.linspace(a, b, 5), lambda a, b: np.linspace(a, b, 5),
         [rand(3), rand(3)]),
    case("linspace", lambda a, b: ops.linspace(a, b, 4, endpoint=False, axis=-1),
         lambda a, b: np.linspace(a, b, 4, endpoint=False, axis=-1), [rand(2, 1), rand(3)],
         label="no-endpoint-axis"),
    case("linspace", lambda a, b: ops.linspace(a, b, 3, retstep=True),
         lambda a, b: np.linspace(a, b, 3, retstep=True), [rand(), rand()], label="retstep"),
    case("logspace", lambda a, b: ops.logspace(a, b, 4, base=2),
         lambda a, b: np.logspace(a, b, 4, base=2), [rand(2), rand(2)]),
    case("geomspace", lambda a, b: ops.geomspace(a, b, 4),
         lambda a, b: np.geomspace(a, b, 4), [rand(2, low=0.5, high=2), rand(2, low=3, high=9)]),
    case("geomspace", lambda a, b: ops.geomspace(a, b, 3, endpoint=False),
         lambda a, b: np.geomspace(a, b, 3, endpoint=False),
         [rand(2, low=-2, high=-0.5), rand(2, low=-9, high=-3)], label="negative"),
    case("meshgrid", lambda a, b, c: ops.meshgrid(a, b, c), lambda a, b, c: np.meshgrid(a, b, c),
         [rand(3), rand(2), rand(4)]),
    case("meshgrid", lambda a, b: ops.meshgrid(a, b, indexing="ij"),
         lambda a, b: np.meshgrid(a, b, indexing="ij"), [rand(3), rand(2)], label="ij"),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


def test_keras_dtypes_and_values(backend):
    # Keras 3.15.1 (JAX): integer dtypes floor; python numbers give float32
    assert ops.linspace(0, 10, 5, dtype="int32").numpy().tolist() == [0, 2, 5, 7, 10]
    assert ops.linspace(-3, 0, 3, dtype="int32").numpy().tolist() == [-3, -2, 0]
    samples, step = ops.linspace(0, 1, 4, retstep=True, endpoint=False)
    np.testing.assert_allclose(samples.numpy(), [0, 0.25, 0.5, 0.75])
    assert float(step.numpy()) == 0.25 and samples.dtype == "float32"
    np.testing.assert_allclose(ops.logspace(0, 2, 3, base=2).numpy(), [1.0, 2.0, 4.0])
    np.testing.assert_allclose(ops.geomspace(1, 1000, 4).numpy(), [1.0, 10.0, 100.0, 1000.0],
                               rtol=1e-6)
    np.testing.assert_allclose(ops.geomspace(-2, -32, 5, endpoint=False).numpy(),
                               [-2.0, -3.4822025299, -6.0628666878, -10.5560636520,
                                -18.3791790009], rtol=1e-6)
    assert ops.empty_like(np.ones(2, "int32")).dtype == "int32"
    assert ops.empty((2, 3), "int32").dtype == "int32" and ops.eye(2).dtype == "float32"
    assert [m.shape for m in ops.meshgrid(ops.arange(3), ops.arange(2), ops.arange(4))] == \
        [(2, 3, 4)] * 3


def test_copy_is_a_snapshot(backend):
    v = lamina.Variable(np.ones(2, np.float32))
    c = ops.copy(v)
    v.assign(np.zeros(2, np.float32))
    np.testing.assert_allclose(c.numpy(), [1.0, 1.0])


def test_creation_errors(backend):
    with pytest.raises(ShapeError, match=r"empty: argument 'shape' must be non-negative ints"):
        ops.empty((2, -1))
    with pytest.raises(TypeError, match=r"eye: argument 'N' must be a non-negative int"):
        ops.eye(2.5)
    with pytest.raises(ValueError, match=r"tri: argument 'M' must be a non-negative int"):
        ops.tri(2, -1)
    with pytest.raises(TypeError, match=r"eye: argument 'k' must be an int"):
        ops.eye(2, k=0.5)
    with pytest.raises(ValueError, match=r"linspace: argument 'num' must be a non-negative int"):
        ops.linspace(0, 1, -2)
    with pytest.raises(ValueError, match=r"meshgrid: argument 'indexing' must be 'xy' or 'ij'"):
        ops.meshgrid(ops.arange(2), indexing="xx")
