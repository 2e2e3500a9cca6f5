"""The numpy backend computes bfloat16 elementwise arithmetic and comparisons through
float32 arrays (one rounding per result): bit for bit what ml_dtypes' own bfloat16 ufuncs
give, including zeros of both signs, infinities, NaN, overflow and mixed operands. (With
oneDNN on, +, -, * and / of two bfloat16 operands run on its binary primitive, whose bits
are these except that bfloat16 subnormal results flush to zero: tests/backend/
test_dnnl_binary.py. These tests run the widened path, oneDNN off.)"""
import numpy as np
import pytest

from lamina.backend import get_backend

ml_dtypes = pytest.importorskip("ml_dtypes", reason="bfloat16 needs ml_dtypes "
                                                    "(pip install lamina[bfloat16])")
BF16 = ml_dtypes.bfloat16
OPS = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "equal", "not_equal",
       "less", "less_equal", "greater", "greater_equal"]


def _operands():
    rng = np.random.default_rng(0)
    with np.errstate(over="ignore"):          # some values overflow to inf on purpose
        a = (rng.standard_normal(20000)
             * rng.choice([1e-3, 1, 1e3, 1e38], 20000)).astype(BF16)
    b = (rng.standard_normal(20000) * rng.choice([1e-3, 1, 1e3, 1e-30], 20000)).astype(BF16)
    a[:10] = [0, -0.0, np.inf, -np.inf, np.nan, 1, 2, 3, 4, 5]
    b[:10] = [0, 0, np.inf, 1, 2, -0.0, np.nan, 0, -0.0, 5]
    mask = rng.random(20000) > 0.5
    return a, [b, 0, 2.5, mask, b.astype(np.float32)]


@pytest.mark.parametrize("fn", OPS)
def test_bits_equal_ml_dtypes(fn, numpy_kernels):
    backend = numpy_kernels
    a, others = _operands()
    for b in others:
        with np.errstate(all="ignore"):
            expected = getattr(np, fn)(a, b)
            got = backend.binary(fn, a, b)
            out = np.empty_like(expected)
            into = backend.binary(fn, a, b, out=out)
        assert got.dtype == expected.dtype, (fn, type(b))
        assert np.array_equal(got.view(np.uint8), expected.view(np.uint8)), (fn, type(b))
        assert into is out and np.array_equal(out.view(np.uint8), expected.view(np.uint8))
