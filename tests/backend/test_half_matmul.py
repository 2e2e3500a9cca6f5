"""float16 matmul on the CPU: float32 products and sums, rounded once (numpy's own float16
matmul is a scalar loop about 100x slower than float32 BLAS)."""
import numpy as np

from lamina.backend import get_backend


def test_float16_matmul_rounds_a_float32_product_once():
    backend = get_backend("numpy")
    rng = np.random.default_rng(0)
    a = rng.normal(size=(3, 5, 40)).astype("float16")
    b = rng.normal(size=(40, 7)).astype("float16")
    expected = (a.astype("float32") @ b.astype("float32")).astype("float16")
    result = backend.matmul(a, b)
    assert result.dtype == np.float16
    np.testing.assert_array_equal(result, expected)
    out = np.empty((3, 5, 7), "float16")
    assert backend.matmul(a, b, out=out) is out
    np.testing.assert_array_equal(out, expected)
