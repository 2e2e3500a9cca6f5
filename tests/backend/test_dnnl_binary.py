"""bfloat16 arithmetic on oneDNN's binary primitive (lamina/backend/dnnl_binary.py): the
bits of the widened float32 path (half_precision.py), infinities and NaNs included, with
broadcasting second operands, swapped commutative operands, scalars and in-place outputs,
except that a subnormal bfloat16 result is zero (the AVX512-BF16 conversion flushes
subnormals, as the bfloat16 convolutions and matmuls on oneDNN do)."""
import numpy as np
import pytest

from lamina.backend import dnnl_binary, dnnl_lib
from lamina.backend.numpy_backend import NumpyBackend

ml_dtypes = pytest.importorskip("ml_dtypes")
pytestmark = pytest.mark.skipif(dnnl_lib.runtime() is None, reason="oneDNN is not loaded")
BF16 = np.dtype(ml_dtypes.bfloat16)


def operands():
    rng = np.random.default_rng(11)
    y = (rng.standard_normal((4, 9, 9, 32)) * 100).astype(BF16)
    y[0, 0, 0, :6] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40]
    z = rng.standard_normal(y.shape).astype(BF16)
    z[0, 0, 0, :4] = [0.0, np.inf, 2.0, -np.inf]
    return y, z, rng.standard_normal(32).astype(BF16)


def same_but_flushed(got, want):
    """``got`` equals ``want`` (as float32, NaN where NaN), except that where ``want`` is a
    bfloat16 subnormal (below 2**-126 in magnitude) ``got`` may be zero."""
    got, want = got.astype("float32"), want.astype("float32")
    subnormal = (np.abs(want) < 2.0 ** -126) & (want != 0)
    np.testing.assert_array_equal(np.where(subnormal, 0, got), np.where(subnormal, 0, want))
    assert np.all((got[subnormal] == 0) | (got[subnormal] == want[subnormal]))


@pytest.mark.parametrize("fn", sorted(dnnl_binary.ALGORITHMS))
def test_the_bits_of_the_widened_path(fn):
    on, off = NumpyBackend(), NumpyBackend()
    off.onednn = False
    y, z, bias = operands()
    dnnl_lib.clear_cache()
    with np.errstate(all="ignore"):
        cases = [(y, z), (y, bias), (y, 2.5), (y, 0)]
        if fn in ("add", "multiply"):
            cases.append((bias, y))                       # broadcast first: swapped
        for a, b in cases:
            got, want = on.binary(fn, a, b), off.binary(fn, a, b)
            assert got.dtype == want.dtype
            same_but_flushed(got, want)
        out = y.copy()
        assert on.binary(fn, out, bias, out=out) is out          # in place
        same_but_flushed(out, off.binary(fn, y, bias))
    assert any(k[0] == "binary" and v is not None for k, v in dnnl_lib.CACHE.items())


def test_max_min_and_comparisons_stay_on_numpy():
    """oneDNN's max/min and comparisons do not propagate NaN as numpy does."""
    y, z, _ = operands()
    for fn in ("maximum", "minimum", "greater", "equal"):
        assert dnnl_binary.binary(fn, y, z, BF16) is None
