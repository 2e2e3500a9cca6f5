import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.errors import BackendError, DTypeError
from tests.harness import case, rand, run_case

CASES = [
    case("cast", lambda x: ops.cast(ops.cast(x, "float32"), "float64"),
         lambda x: x.astype(np.float32).astype(np.float64),
         # float32-exact inputs and step, so the central differences are exact too
         [np.round(rand(3, 4) * 256) / 256], eps=2.0 ** -10, float32=False,
         label="through-float32"),
    case("cast", lambda x: ops.cast(x, "int32"), lambda x: x.astype(np.int32),
         [rand(3, 4, low=-5, high=5)], grad=False, label="to-int"),
    case("cast", lambda x: ops.cast(x, "float16"), lambda x: x.astype(np.float16),
         [rand(5)], grad=False, float32=False, label="to-float16"),
    case("stop_gradient", lambda x: ops.add(ops.stop_gradient(x), x), lambda x: 2 * x,
         [rand(3)], grad=False),
    case("fill_like", lambda x: ops.zeros_like(x), np.zeros_like, [rand(2, 3)], grad=False),
    case("zeros_like", ops.zeros_like, np.zeros_like, [rand(2, 3)], grad=False),
    case("ones_like", ops.ones_like, np.ones_like, [rand(2, 3)], grad=False),
    case("full_like", lambda x: ops.full_like(x, 7.5), lambda x: np.full_like(x, 7.5),
         [rand(2, 3)], grad=False),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


def test_stop_gradient_blocks_the_gradient(backend):
    x = ops.convert_to_tensor([1.0, 2.0])
    with lamina.GradientTape() as tape:
        tape.watch(x)
        y = ops.sum(ops.multiply(ops.stop_gradient(x), x))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [1.0, 2.0])


def test_cast_gradient_returns_to_the_input_dtype(backend):
    x = ops.convert_to_tensor([1.0, 2.0], dtype="float32")
    with lamina.GradientTape() as tape:
        tape.watch(x)
        y = ops.sum(ops.cast(x, "float64") * 3.0)
    g = tape.gradient(y, x)
    assert g.dtype == "float32"
    np.testing.assert_allclose(g.numpy(), [3.0, 3.0])


def test_convert_to_tensor_dtypes(backend):
    assert ops.convert_to_tensor(1.5).dtype == "float32"
    assert ops.convert_to_tensor([1, 2]).dtype == "int32"
    assert ops.convert_to_tensor(True).dtype == "bool"
    assert ops.convert_to_tensor(np.zeros(3)).dtype == "float64"
    assert ops.convert_to_tensor(np.zeros(3), dtype="float16").dtype == "float16"
    assert ops.convert_to_tensor([[1.0], [2.0]]).shape == (2, 1)
    t = ops.convert_to_tensor([ops.ones((2,)), ops.zeros((2,))])
    assert t.shape == (2, 2)
    assert t.backend is backend


def test_python_scalars_are_weakly_typed(backend):
    x = ops.convert_to_tensor([1.0, 2.0], dtype="float16")
    assert (x * 2.0).dtype == "float16"
    assert (2 + x).dtype == "float16"
    i = ops.convert_to_tensor([1, 2])
    assert (i + 1).dtype == "int32"
    assert (i * 2.5).dtype == "float32"
    np.testing.assert_allclose((i * 2.5).numpy(), [2.5, 5.0])


def test_mixed_dtypes_promote(backend):
    a = ops.convert_to_tensor([1.0], dtype="float32")
    b = ops.convert_to_tensor([1.0], dtype="float64")
    assert ops.add(a, b).dtype == "float64"
    i = ops.convert_to_tensor([3], dtype="int64")
    assert ops.add(i, a).dtype == "float32"


def test_unknown_dtype_is_a_typed_error():
    with pytest.raises(DTypeError, match="unknown dtype 'float31'"):
        ops.convert_to_tensor([1.0], dtype="float31")


def test_binary_primitive_rejects_mixed_dtypes_with_a_named_error():
    a = ops.convert_to_tensor([1.0], dtype="float32")
    b = ops.convert_to_tensor([1.0], dtype="float64")
    with pytest.raises(DTypeError, match="add: arguments 'x1' and 'x2' must have one dtype"):
        ops.OP_REGISTRY["add"](a, b)


def test_host_array_next_to_a_foreign_backend_tensor_is_an_error():
    class FakeBackend(type(lamina.backend.get_backend("numpy"))):
        name = "fake"

        def is_array(self, a):
            return False
    fake = FakeBackend()
    t = lamina.Tensor._wrap(np.ones(2, dtype=np.float32), fake)
    with pytest.raises(BackendError, match="host array was mixed with a tensor on the fake"):
        ops.add(t, np.ones(2, dtype=np.float32))


def test_creation_helpers(backend):
    assert ops.zeros((2, 3)).shape == (2, 3)
    assert ops.ones((2,), dtype="int32").dtype == "int32"
    np.testing.assert_array_equal(ops.full((2,), 4.0).numpy(), [4.0, 4.0])
    np.testing.assert_array_equal(ops.arange(4).numpy(), [0, 1, 2, 3])
    assert ops.arange(0.0, 1.0, 0.5).dtype == "float32"
    assert ops.zeros((1,)).backend is backend
