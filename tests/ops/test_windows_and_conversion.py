"""Window functions, saturate_cast, view, multi_hot and the
introspection functions (shape, ndim, size, dtype, is_tensor), with Keras 3.15.1's values."""
import numpy as np
import pytest

from lamina import ops
from lamina.errors import ShapeError
from tests.harness import case, rand, run_case


def np_kaiser(m, beta):
    return np.kaiser(m, beta).astype(np.float32)


def _window_case(name, ref, *args, label=""):
    return case(name, lambda: getattr(ops, name)(*args), lambda: ref(*args).astype(np.float32),
                [], grad=False, graph=False, label=label, fwd_rtol32=1e-6, fwd_atol32=1e-7)


CASES = [
    _window_case("bartlett", np.bartlett, 6),
    _window_case("bartlett", np.bartlett, 1, label="one"),
    _window_case("blackman", np.blackman, 7),
    _window_case("hamming", np.hamming, 5),
    _window_case("hamming", np.hamming, 0, label="empty"),
    _window_case("hanning", np.hanning, 6),
    _window_case("kaiser", np.kaiser, 6, 4.5),
    _window_case("kaiser", np.kaiser, 5, 30.0, label="wide"),
    case("saturate_cast", lambda x: ops.saturate_cast(x, "uint8"),
         lambda x: np.array([0, 1, 255, 0], np.uint8), [np.array([-300.0, 1.7, 300, np.nan])],
         grad=False),
    case("saturate_cast", lambda x: ops.saturate_cast(x, "int16"),
         lambda x: np.array([-1, 32767], np.int16), [np.array([-1, 70000], np.int64)],
         grad=False, label="int"),
    case("saturate_cast", lambda x: ops.saturate_cast(x, "float16"),
         lambda x: np.clip(x, -65504, 65504).astype(np.float16), [np.array([1e6, -1e6, 1.5])],
         grad=False, float32=False, label="float16"),
    case("saturate_cast", lambda x: ops.saturate_cast(x, "float64"), lambda x: x,
         [rand(3)], label="float", float32=False),
    case("view", lambda x: ops.view(x, "float32"), lambda x: np.array([1.0, -2.0], np.float32),
         [np.array([1065353216, -1073741824], np.int32)], grad=False),   # Keras 3.15.1
    case("view", lambda x: ops.view(x, "float32"), lambda x: x.view(np.float32),
         [np.array([[1, 2, 3, 4]], np.int16)], grad=False, label="wider"),
    case("multi_hot", lambda x: ops.multi_hot(x, 4),
         lambda x: np.array([[1.0, 0, 1, 0], [0, 1, 0, 0]], np.float32),
         [np.array([[0, 2], [1, 1]])], grad=False),
    case("multi_hot", lambda x: ops.multi_hot(x, num_tokens=4, axis=0),
         lambda x: np.array([[1.0, 0], [1, 1], [0, 1], [0, 0]], np.float32),
         [np.array([[0, 2], [1, 1]])], grad=False, label="axis0"),
    case("multi_hot", lambda x: ops.multi_hot(x, 4, dtype="int32"),
         lambda x: np.array([1, 0, 1, 1], np.int32), [np.array([0, 2, 3, 7])], grad=False,
         label="1d"),
    case("multi_hot", lambda x: ops.multi_hot(x, 4, dtype="bool"),     # Keras: a bool result
         lambda x: np.array([[True, False, True, False], [False, True, False, False]]),
         [np.array([[0, 2], [1, 1]])], grad=False, label="bool"),
    case("shape", lambda x: ops.convert_to_tensor(ops.shape(x)),
         lambda x: np.array(x.shape, np.int32), [rand(2, 3)], grad=False, graph=False),
    case("ndim", lambda x: ops.convert_to_tensor(ops.ndim(x)), lambda x: np.int32(x.ndim),
         [rand(2, 3)], grad=False, graph=False),
    case("size", lambda x: ops.convert_to_tensor(ops.size(x)), lambda x: np.int32(x.size),
         [rand(2, 3)], grad=False, graph=False),
    case("dtype", lambda x: ops.convert_to_tensor(ops.dtype(x) == "int64"),
         lambda x: np.bool_(True), [np.array([1], np.int64)], grad=False, graph=False),
    case("is_tensor", lambda x: ops.convert_to_tensor(ops.is_tensor(x)),
         lambda x: np.bool_(True), [rand(2)], grad=False, graph=False),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


def test_windows_are_float32_keras_values(backend):
    # Keras 3.15.1 (JAX, float32 arithmetic): agree to float32 rounding
    np.testing.assert_allclose(ops.hamming(6).numpy(),
                               [0.08000001, 0.39785221, 0.91214788, 0.91214782, 0.39785212,
                                0.08000001], rtol=1e-6)
    np.testing.assert_allclose(ops.kaiser(6, 4.5).numpy(),
                               [0.05720441, 0.45921901, 0.92319489, 0.92319489, 0.45921901,
                                0.05720441], rtol=1e-6)
    assert ops.bartlett(3).dtype == "float32"
    assert ops.hanning(ops.convert_to_tensor(4)).shape == (4,)


def test_conversion_errors(backend):
    with pytest.raises(TypeError, match=r"bartlett: argument 'x' must be an int \(the number "
                                        r"of points\); received 2.5"):
        ops.bartlett(2.5)
    with pytest.raises(ShapeError, match=r"view: the last axis of 'x' \(3 x 2 bytes\) must be "
                                         r"a multiple of 4 bytes"):
        ops.view(np.ones(3, np.int16), "float32")
    with pytest.raises(ShapeError, match=r"view: a scalar of float32 cannot be viewed as int16"):
        ops.view(np.float32(1.0), "int16")
    with pytest.raises(ValueError, match=r"multi_hot: argument 'num_classes' must be specified"):
        ops.multi_hot(np.array([0]))
    with pytest.raises(ValueError, match=r"multi_hot: sparse=True is not supported"):
        ops.multi_hot(np.array([0]), 2, sparse=True)
    with pytest.raises(TypeError, match=r"multi_hot: unexpected keyword arguments \['depth'\]"):
        ops.multi_hot(np.array([0]), 2, depth=3)
    assert ops.view(ops.ones((2,))).dtype == "float32"
