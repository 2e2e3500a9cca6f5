"""The limits of ml_dtypes' types (bfloat16, float8, int4) where a kernel or an op needs
them: max pooling pads with the dtype's lowest value (numpy's ``iinfo``/``finfo`` reject
ml_dtypes' types: "Invalid integer data type 'V'"), erf keeps a bfloat16 input's dtype,
``saturate_cast`` and ``nan_to_num`` know bfloat16's largest finite value."""
from __future__ import annotations

import math

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.backend import dtype_limits

ml_dtypes = pytest.importorskip("ml_dtypes")

BF16 = np.dtype(ml_dtypes.bfloat16)


def _numpy(t):
    return np.asarray(ops.convert_to_numpy(t))


# ----------------------------------------------------------------------- dtype limits
@pytest.mark.parametrize("dtype,low,high", [
    ("bfloat16", -math.inf, math.inf),
    ("float16", -math.inf, math.inf),
    ("float32", -math.inf, math.inf),
    ("float8_e5m2", -math.inf, math.inf),
    ("float8_e4m3fn", -448.0, 448.0),        # no infinity: -inf would become NaN
    ("float8_e4m3fnuz", -240.0, 240.0),
    ("float4_e2m1fn", -6.0, 6.0),
    ("int8", -128, 127),
    ("uint8", 0, 255),
    ("int4", -8, 7),
    ("bool", False, True),
])
def test_lowest_and_highest(dtype, low, high):
    if not hasattr(ml_dtypes, dtype) and dtype not in ("float16", "float32", "int8",
                                                         "uint8", "bool"):
        pytest.skip(f"this ml_dtypes has no {dtype}")
    dt = np.dtype(getattr(ml_dtypes, dtype, dtype))
    assert dtype_limits.lowest(dt) == low and dtype_limits.highest(dt) == high
    assert dtype_limits.lowest(dt.name) == low       # a name numpy knows works too
    if dtype != "bool":
        # lowest is a value of the dtype itself: it casts there and back unchanged
        assert np.array(low).astype(dt).astype(np.float64) == low


def test_finfo_and_iinfo_of_ml_dtypes():
    info = dtype_limits.finfo("bfloat16")
    assert float(info.max) == 3.3895313892515355e38 == lamina.dtypes.FLOAT_MAX["bfloat16"]
    assert float(info.eps) == 2.0 ** -7
    assert float(dtype_limits.finfo("float16").max) == 65504.0
    assert float(dtype_limits.finfo(np.float32).eps) == float(np.finfo(np.float32).eps)
    assert float(dtype_limits.finfo(ml_dtypes.float8_e4m3fn).max) == 448.0
    assert int(dtype_limits.iinfo(ml_dtypes.int4).min) == -8
    assert int(dtype_limits.iinfo("int32").max) == 2 ** 31 - 1
    assert dtype_limits.is_floating("bfloat16") and dtype_limits.is_floating("float16")
    assert dtype_limits.is_floating(ml_dtypes.float8_e5m2)  # kind 'f', not numpy.floating
    assert not dtype_limits.is_floating("int8") and not dtype_limits.is_floating("bool")
    with pytest.raises(ValueError, match="expected a float dtype"):
        dtype_limits.finfo("int8")
    with pytest.raises(ValueError, match="expected an integer dtype"):
        dtype_limits.iinfo("bfloat16")


# ----------------------------------------------------------------------- max pooling
# Every value is exact in bfloat16 and in float8_e4m3fn (float8_e5m2 rounds -9 to -8).
X = np.array([[-3.0, -1.5, -8.0, -0.25],
              [-2.0, -6.0, -0.5, -4.0],
              [-1.0, 1.5, -7.0, -2.5],
              [-5.0, -0.75, -3.5, -9.0]], np.float32)[None, :, :, None]
# pool 3, strides 2, 'same': pads (0, 1) each way; the right and bottom windows hold
# padding, which a max never takes (windows (0, 1) and (1, 1) hold only negative values,
# so a fill of 0 would show there)
MAX_SAME = np.array([[1.5, -0.25], [1.5, -2.5]], np.float32)[None, :, :, None]
MAX_VALID = np.array([[-1.5, -0.25], [1.5, -2.5]], np.float32)[None, :, :, None]


def test_max_pool_of_bfloat16_values():
    x = ops.convert_to_tensor(X.astype(BF16))
    same = ops.max_pool(x, 3, strides=2, padding="same")
    valid = ops.max_pool(x, 2, padding="valid")
    assert same.dtype == valid.dtype == "bfloat16"
    np.testing.assert_array_equal(_numpy(same).astype(np.float32), MAX_SAME)
    np.testing.assert_array_equal(_numpy(valid).astype(np.float32), MAX_VALID)


def test_max_pool_gradient_of_bfloat16_values():
    x = ops.convert_to_tensor(X.astype(BF16))
    with lamina.GradientTape() as tape:
        tape.watch(x)
        y = ops.sum(ops.cast(ops.max_pool(x, 3, strides=2, padding="same"), "float32"))
    grad = _numpy(tape.gradient(y, x))
    expected = np.zeros((4, 4), np.float32)
    expected[2, 1] = 2.0            # the max of windows (0, 0) and (1, 0)
    expected[0, 3] = expected[2, 3] = 1.0
    assert grad.dtype == BF16
    np.testing.assert_array_equal(grad.astype(np.float32)[0, :, :, 0], expected)


@pytest.mark.parametrize("onednn", [True, False], ids=["onednn", "numpy_kernels"])
@pytest.mark.parametrize("name", ["bfloat16", "float16", "float8_e4m3fn", "float8_e5m2",
                                  "float8_e4m3fnuz"])
def test_backend_max_pool_pads_with_the_lowest_value(name, onednn, monkeypatch):
    """A type without infinity (float8_e4m3fn) pads with its most negative finite value:
    -inf would turn into NaN there and win every padded window. oneDNN (where it loads)
    takes bfloat16; the numpy kernels take every dtype."""
    backend = lamina.backend.get_backend("numpy")
    if not onednn:
        monkeypatch.setattr(backend, "onednn", False)
    dtype = np.dtype(getattr(ml_dtypes, name, name))
    x = X.astype(dtype)
    pads = ((0, 1), (0, 1))
    y = backend.pool2d(x, "max", (3, 3), (2, 2), pads)
    assert y.dtype == dtype
    np.testing.assert_array_equal(y.astype(np.float32), MAX_SAME)
    dx = backend.max_pool2d_backprop(x, y, np.ones_like(y), (3, 3), (2, 2), pads)
    assert dx.astype(np.float32).sum() == 4.0 and not np.isnan(dx.astype(np.float32)).any()


def test_max_pooling2d_layer_under_mixed_bfloat16():
    layer = layers.MaxPooling2D(3, strides=2, padding="same", dtype="mixed_bfloat16")
    y = layer(X)                      # float32 in, cast to the compute dtype bfloat16
    assert y.dtype == "bfloat16"
    np.testing.assert_array_equal(_numpy(y).astype(np.float32), MAX_SAME)


def test_average_pool_of_bfloat16_values():
    x = ops.convert_to_tensor(X.astype(BF16))
    y = ops.average_pool(x, 3, strides=2, padding="same")
    # padding is not counted: 9, 6, 6 and 4 real values in the four windows
    expected = np.array([[-27.5 / 9, -22.25 / 6], [-15.75 / 6, -22.0 / 4]], np.float32)
    assert y.dtype == "bfloat16"
    np.testing.assert_allclose(_numpy(y).astype(np.float32)[0, :, :, 0], expected,
                               rtol=2 ** -7)


# ----------------------------------------------------------------------- erf and casts
def test_erf_keeps_bfloat16():
    values = np.array([-2.0, -0.5, 0.0, 0.3125, 1.75], np.float32)
    x = ops.convert_to_tensor(values.astype(BF16))
    expected = np.array([math.erf(v) for v in values]).astype(BF16)
    for fn in (ops.erf, lambda t: lamina.activations.gelu(t, approximate=False)):
        y = fn(x)
        assert y.dtype == "bfloat16" and _numpy(y).dtype == BF16
    np.testing.assert_array_equal(_numpy(ops.erf(x)), expected)
    erfc = _numpy(ops.erfc(x))
    assert erfc.dtype == BF16
    np.testing.assert_array_equal(erfc, np.array([math.erfc(v) for v in values]).astype(BF16))


def test_saturate_cast_and_nan_to_num_with_bfloat16():
    big = float(lamina.dtypes.FLOAT_MAX["bfloat16"])
    x = ops.convert_to_tensor(np.array([3.4e38, -3.4e38, 1.5], np.float32))
    y = ops.saturate_cast(x, "bfloat16")
    assert y.dtype == "bfloat16"
    np.testing.assert_array_equal(_numpy(y).astype(np.float64), [big, -big, 1.5])
    # bfloat16 -> float16: float16's 65504 rounds up to 65536 in bfloat16 (not a float16)
    h = ops.convert_to_tensor(np.array([70144.0, -1e30, 65280.0, 2.5], np.float32).astype(BF16))
    z = _numpy(ops.saturate_cast(h, "float16"))
    assert z.dtype == np.float16
    np.testing.assert_array_equal(z, np.array([65504.0, -65504.0, 65280.0, 2.5], np.float16))
    w = ops.convert_to_tensor(np.array([np.inf, -np.inf, np.nan, 2.0], np.float32).astype(BF16))
    v = ops.nan_to_num(w)
    assert v.dtype == "bfloat16"
    np.testing.assert_array_equal(_numpy(v).astype(np.float64), [big, -big, 0.0, 2.0])
