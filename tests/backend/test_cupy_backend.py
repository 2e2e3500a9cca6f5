"""The cupy backend's own kernels against the numpy backend's (GPU only).

Every test here needs CuPy and a CUDA GPU, and skips with the reason where there is none.
"""
import math

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.backend import cupy_backend
from lamina.errors import BackendError, DTypeError
from tests.conftest import cupy_unavailable_reason

_REASON = cupy_unavailable_reason()
pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(_REASON is not None,
                                 reason=f"cupy backend unavailable: {_REASON}")]

_rng = np.random.default_rng(20240611)
TOLERANCES = {"float64": dict(rtol=1e-10, atol=1e-12), "float32": dict(rtol=2e-5, atol=2e-5)}
FLOATS = ["float32", "float64"]


@pytest.fixture(scope="module")
def gpu():
    return lamina.backend.get_backend("cupy")


@pytest.fixture(scope="module")
def cpu():
    return lamina.backend.get_backend("numpy")


def host(gpu, a):
    return gpu.to_host(a)


def close(actual, expected, dtype):
    np.testing.assert_allclose(actual, expected, **TOLERANCES[dtype])


# ----------------------------------------------------------------- convolution
# (x shape NHWC, w shape HWIO, strides, pads, dilation, groups)
CONV_CASES = {
    "valid_3x3": ((2, 7, 6, 3), (3, 3, 3, 4), (1, 1), ((0, 0), (0, 0)), (1, 1), 1),
    "same_3x3": ((2, 6, 6, 3), (3, 3, 3, 4), (1, 1), ((1, 1), (1, 1)), (1, 1), 1),
    "stride2_same_uneven": ((2, 8, 7, 3), (3, 3, 3, 5), (2, 2), ((0, 1), (1, 1)), (1, 1), 1),
    "stride_2x3_valid": ((1, 9, 11, 2), (3, 2, 2, 3), (2, 3), ((0, 0), (0, 0)), (1, 1), 1),
    "dilation2": ((1, 9, 9, 2), (3, 3, 2, 3), (1, 1), ((2, 2), (2, 2)), (2, 2), 1),
    "dilation_stride": ((2, 10, 9, 2), (2, 3, 2, 2), (2, 1), ((1, 0), (0, 2)), (2, 1), 1),
    "groups2": ((2, 6, 6, 4), (3, 3, 2, 6), (1, 1), ((1, 1), (1, 1)), (1, 1), 2),
    "depthwise_stride2": ((2, 5, 5, 4), (3, 3, 1, 8), (2, 2), ((1, 1), (1, 1)), (1, 1), 4),
    "pointwise": ((2, 5, 4, 6), (1, 1, 6, 3), (1, 1), ((0, 0), (0, 0)), (1, 1), 1),
    "pointwise_stride2": ((2, 5, 4, 6), (1, 1, 6, 3), (2, 2), ((0, 0), (0, 0)), (1, 1), 1),
    "pointwise_groups": ((2, 3, 4, 6), (1, 1, 2, 6), (1, 1), ((0, 0), (0, 0)), (1, 1), 3),
    "kernel_as_big_as_input": ((3, 4, 5, 2), (4, 5, 2, 3), (1, 1), ((0, 0), (0, 0)), (1, 1), 1),
    "cropping_pads": ((1, 6, 6, 2), (3, 3, 2, 2), (1, 1), ((-1, 0), (0, -1)), (1, 1), 1),
}


def _conv_inputs(case, dtype):
    x_shape, w_shape, strides, pads, dilation, groups = CONV_CASES[case]
    x = _rng.standard_normal(x_shape).astype(dtype)
    w = _rng.standard_normal(w_shape).astype(dtype)
    return x, w, (strides, pads, dilation, groups)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", sorted(CONV_CASES))
def test_conv2d_matches_numpy(gpu, cpu, case, dtype):
    x, w, geometry = _conv_inputs(case, dtype)
    expected = cpu.conv2d(x, w, *geometry)
    actual = gpu.conv2d(gpu.asarray(x), gpu.asarray(w), *geometry)
    assert actual.shape == expected.shape and actual.dtype == dtype
    close(host(gpu, actual), expected, dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", sorted(CONV_CASES))
def test_conv2d_backprop_input_matches_numpy(gpu, cpu, case, dtype):
    x, w, geometry = _conv_inputs(case, dtype)
    dy = _rng.standard_normal(cpu.conv2d(x, w, *geometry).shape).astype(dtype)
    expected = cpu.conv2d_backprop_input(dy, w, x.shape, *geometry)
    actual = gpu.conv2d_backprop_input(gpu.asarray(dy), gpu.asarray(w), x.shape, *geometry)
    assert actual.shape == x.shape and actual.dtype == dtype
    close(host(gpu, actual), expected, dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", sorted(CONV_CASES))
def test_conv2d_backprop_filter_matches_numpy(gpu, cpu, case, dtype):
    x, w, geometry = _conv_inputs(case, dtype)
    dy = _rng.standard_normal(cpu.conv2d(x, w, *geometry).shape).astype(dtype)
    expected = cpu.conv2d_backprop_filter(x, dy, w.shape, *geometry)
    actual = gpu.conv2d_backprop_filter(gpu.asarray(x), gpu.asarray(dy), w.shape, *geometry)
    assert actual.shape == w.shape and actual.dtype == dtype
    close(host(gpu, actual), expected, dtype)


def test_conv_backprops_are_adjoint_to_conv2d(gpu):
    """<conv(x, w), dy> = <x, dx(dy)> = <w, dw(x, dy)>: the three kernels agree exactly."""
    x, w, geometry = _conv_inputs("stride2_same_uneven", "float64")
    gx, gw = gpu.asarray(x), gpu.asarray(w)
    y = host(gpu, gpu.conv2d(gx, gw, *geometry))
    dy = _rng.standard_normal(y.shape)
    dx = host(gpu, gpu.conv2d_backprop_input(gpu.asarray(dy), gw, x.shape, *geometry))
    dw = host(gpu, gpu.conv2d_backprop_filter(gx, gpu.asarray(dy), w.shape, *geometry))
    assert np.vdot(y, dy) == pytest.approx(np.vdot(x, dx), rel=1e-12)
    assert np.vdot(y, dy) == pytest.approx(np.vdot(w, dw), rel=1e-12)


@pytest.mark.parametrize("case", ["same_3x3", "groups2", "stride2_same_uneven"])
def test_conv_kernels_work_in_sample_chunks(gpu, cpu, case, monkeypatch):
    """A tiny column budget forces one chunk per sample; results must not change."""
    monkeypatch.setattr(cupy_backend, "_COLUMN_ELEMENTS", 1)
    x, w, geometry = _conv_inputs(case, "float64")
    x = np.concatenate([x, x[::-1] * 0.5, x + 1.0])            # a batch of 6
    dy = _rng.standard_normal(cpu.conv2d(x, w, *geometry).shape)
    gx, gw, gdy = gpu.asarray(x), gpu.asarray(w), gpu.asarray(dy)
    close(host(gpu, gpu.conv2d(gx, gw, *geometry)), cpu.conv2d(x, w, *geometry), "float64")
    close(host(gpu, gpu.conv2d_backprop_input(gdy, gw, x.shape, *geometry)),
          cpu.conv2d_backprop_input(dy, w, x.shape, *geometry), "float64")
    close(host(gpu, gpu.conv2d_backprop_filter(gx, gdy, w.shape, *geometry)),
          cpu.conv2d_backprop_filter(x, dy, w.shape, *geometry), "float64")


def test_conv_kernels_are_deterministic(gpu):
    x, w, geometry = _conv_inputs("groups2", "float32")
    gx, gw = gpu.asarray(x), gpu.asarray(w)
    y = gpu.conv2d(gx, gw, *geometry)
    gdy = gpu.asarray(_rng.standard_normal(y.shape).astype("float32"))
    for run in (lambda: gpu.conv2d(gx, gw, *geometry),
                lambda: gpu.conv2d_backprop_input(gdy, gw, x.shape, *geometry),
                lambda: gpu.conv2d_backprop_filter(gx, gdy, w.shape, *geometry)):
        np.testing.assert_array_equal(host(gpu, run()), host(gpu, run()))


@pytest.mark.parametrize("case", ["same_3x3", "pointwise"])
def test_conv_kernels_write_into_out(gpu, cpu, case):
    x, w, geometry = _conv_inputs(case, "float64")
    expected = cpu.conv2d(x, w, *geometry)
    out = gpu.xp.zeros(expected.shape, dtype="float64")
    result = gpu.conv2d(gpu.asarray(x), gpu.asarray(w), *geometry, out=out)
    assert result is out
    close(host(gpu, out), expected, "float64")
    # A non-contiguous destination is filled too.
    wide = gpu.xp.zeros(expected.shape[:3] + (2 * expected.shape[3],), dtype="float64")
    strided = wide[..., ::2]
    assert gpu.conv2d(gpu.asarray(x), gpu.asarray(w), *geometry, out=strided) is strided
    close(host(gpu, wide[..., ::2]), expected, "float64")
    dy = _rng.standard_normal(expected.shape)
    dx_out = gpu.xp.zeros(x.shape, dtype="float64")
    dw_out = gpu.xp.zeros(w.shape, dtype="float64")
    gdy = gpu.asarray(dy)
    assert gpu.conv2d_backprop_input(gdy, gpu.asarray(w), x.shape, *geometry,
                                     out=dx_out) is dx_out
    assert gpu.conv2d_backprop_filter(gpu.asarray(x), gdy, w.shape, *geometry,
                                      out=dw_out) is dw_out
    close(host(gpu, dx_out), cpu.conv2d_backprop_input(dy, w, x.shape, *geometry), "float64")
    close(host(gpu, dw_out), cpu.conv2d_backprop_filter(x, dy, w.shape, *geometry), "float64")


def test_conv_of_non_contiguous_inputs(gpu, cpu):
    x, w, geometry = _conv_inputs("same_3x3", "float64")
    gx = gpu.asarray(np.ascontiguousarray(x.transpose(0, 2, 1, 3))).transpose(0, 2, 1, 3)
    assert not gx.flags.c_contiguous
    close(host(gpu, gpu.conv2d(gx, gpu.asarray(w), *geometry)), cpu.conv2d(x, w, *geometry),
          "float64")


def test_conv_in_float16_takes_the_generic_path(gpu, cpu):
    x, w, geometry = _conv_inputs("same_3x3", "float32")
    actual = gpu.conv2d(gpu.asarray(x.astype("float16")), gpu.asarray(w.astype("float16")),
                        *geometry)
    assert actual.dtype == "float16"
    np.testing.assert_allclose(host(gpu, actual).astype("float32"), cpu.conv2d(x, w, *geometry),
                               rtol=2e-2, atol=5e-2)


def test_conv_with_an_empty_batch(gpu):
    x, w, geometry = _conv_inputs("same_3x3", "float32")
    empty = gpu.asarray(x[:0])
    y = gpu.conv2d(empty, gpu.asarray(w), *geometry)
    assert y.shape == (0,) + x.shape[1:3] + (w.shape[3],)
    dw = gpu.conv2d_backprop_filter(empty, gpu.asarray(np.zeros(y.shape, "float32")), w.shape,
                                    *geometry)
    np.testing.assert_array_equal(host(gpu, dw), np.zeros(w.shape))


# ----------------------------------------------------------------- pooling
# (x shape, pool size, strides, pads)
POOL_CASES = {
    "2x2_stride2": ((2, 6, 6, 3), (2, 2), (2, 2), ((0, 0), (0, 0))),
    "2x2_stride2_ragged": ((2, 7, 5, 3), (2, 2), (2, 2), ((0, 0), (0, 0))),
    "3x3_stride2_same": ((2, 7, 5, 3), (3, 3), (2, 2), ((1, 1), (1, 1))),
    "3x2_uneven_pads": ((1, 5, 6, 2), (3, 2), (1, 2), ((1, 0), (0, 1))),
    "overlapping": ((2, 4, 4, 1), (2, 2), (1, 1), ((0, 0), (0, 0))),
    "3x3_stride1_same": ((1, 5, 5, 2), (3, 3), (1, 1), ((1, 1), (1, 1))),
    "global": ((3, 4, 3, 2), (4, 3), (1, 1), ((0, 0), (0, 0))),
}


def _distinct(shape, dtype):
    """All-different values: max pooling has no ties to break."""
    values = np.linspace(-2.0, 2.0, math.prod(shape))
    return _rng.permutation(values).reshape(shape).astype(dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("fn", ["max", "avg"])
@pytest.mark.parametrize("case", sorted(POOL_CASES))
def test_pool2d_matches_numpy(gpu, cpu, case, fn, dtype):
    shape, pool_size, strides, pads = POOL_CASES[case]
    x = _distinct(shape, dtype)
    expected = cpu.pool2d(x, fn, pool_size, strides, pads)
    actual = gpu.pool2d(gpu.asarray(x), fn, pool_size, strides, pads)
    assert actual.shape == expected.shape and actual.dtype == dtype
    close(host(gpu, actual), expected, dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", sorted(POOL_CASES))
def test_max_pool2d_backprop_matches_numpy(gpu, cpu, case, dtype):
    shape, pool_size, strides, pads = POOL_CASES[case]
    x = _distinct(shape, dtype)
    y = cpu.pool2d(x, "max", pool_size, strides, pads)
    dy = _rng.standard_normal(y.shape).astype(dtype)
    expected = cpu.max_pool2d_backprop(x, y, dy, pool_size, strides, pads)
    actual = gpu.max_pool2d_backprop(gpu.asarray(x), gpu.asarray(y), gpu.asarray(dy),
                                     pool_size, strides, pads)
    assert actual.shape == x.shape and actual.dtype == dtype
    close(host(gpu, actual), expected, dtype)


@pytest.mark.parametrize("case", sorted(POOL_CASES))
def test_max_pool2d_backprop_sends_ties_to_the_first_maximum(gpu, cpu, case):
    shape, pool_size, strides, pads = POOL_CASES[case]
    x = np.maximum(_rng.integers(-2, 2, size=shape), 0).astype("float32")   # many ties
    y = cpu.pool2d(x, "max", pool_size, strides, pads)
    dy = _rng.standard_normal(y.shape).astype("float32")
    expected = cpu.max_pool2d_backprop(x, y, dy, pool_size, strides, pads)
    actual = host(gpu, gpu.max_pool2d_backprop(gpu.asarray(x), gpu.asarray(y),
                                               gpu.asarray(dy), pool_size, strides, pads))
    np.testing.assert_array_equal(actual != 0, expected != 0)      # the same routing
    close(actual, expected, "float32")          # sums of several windows: order may differ


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", sorted(POOL_CASES))
def test_avg_pool2d_backprop_matches_numpy(gpu, cpu, case, dtype):
    shape, pool_size, strides, pads = POOL_CASES[case]
    y_shape = cpu.pool2d(np.zeros(shape, dtype), "avg", pool_size, strides, pads).shape
    dy = _rng.standard_normal(y_shape).astype(dtype)
    expected = cpu.avg_pool2d_backprop(dy, shape, pool_size, strides, pads)
    actual = gpu.avg_pool2d_backprop(gpu.asarray(dy), shape, pool_size, strides, pads)
    assert actual.shape == shape and actual.dtype == dtype
    close(host(gpu, actual), expected, dtype)


def test_max_pool_propagates_nan_and_handles_inf(gpu, cpu):
    x = _distinct((1, 4, 4, 1), "float64")
    x[0, 0, 1, 0] = np.nan
    x[0, 3, 3, 0] = -np.inf
    x[0, 2, 2, 0] = np.inf
    args = ((2, 2), (2, 2), ((0, 0), (0, 0)))
    np.testing.assert_array_equal(host(gpu, gpu.pool2d(gpu.asarray(x), "max", *args)),
                                  cpu.pool2d(x, "max", *args))


def test_pool2d_writes_into_out(gpu, cpu):
    shape, pool_size, strides, pads = POOL_CASES["3x3_stride2_same"]
    x = _distinct(shape, "float64")
    expected = cpu.pool2d(x, "avg", pool_size, strides, pads)
    out = gpu.xp.zeros(expected.shape, dtype="float64")
    assert gpu.pool2d(gpu.asarray(x), "avg", pool_size, strides, pads, out=out) is out
    close(host(gpu, out), expected, "float64")


def test_pool2d_rejects_an_unknown_function(gpu):
    with pytest.raises(ValueError, match=r"pool2d: expected fn 'max' or 'avg'; "
                                         r"received 'min'"):
        gpu.pool2d(gpu.asarray(np.zeros((1, 2, 2, 1))), "min", (2, 2), (2, 2),
                   ((0, 0), (0, 0)))


# ----------------------------------------------------------------- random numbers
KEY = (0x0123456789ABCDEF, 0xFEDCBA9876543210)


def test_philox_matches_numpy_philox4x64(gpu):
    """Block b at counter c is numpy's Philox(key, counter=(b-1) + c * 2**64)'s next block."""
    counter = 12345
    bits = host(gpu, gpu._cuda_philox_bits(9, KEY, counter))
    for block in range(1, 9):
        generator = np.random.Philox(key=KEY[0] + (KEY[1] << 64),
                                     counter=(block - 1) + (counter << 64))
        np.testing.assert_array_equal(bits[block], generator.random_raw(4))


@pytest.mark.parametrize("draw", ["random_uniform", "random_normal"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_random_draws_are_deterministic(gpu, draw, dtype):
    first = host(gpu, getattr(gpu, draw)((7, 5), dtype, KEY, 3))
    second = host(gpu, getattr(gpu, draw)((7, 5), dtype, KEY, 3))
    assert first.shape == (7, 5) and first.dtype == dtype
    np.testing.assert_array_equal(first, second)


@pytest.mark.parametrize("draw", ["random_uniform", "random_normal"])
def test_random_draws_depend_only_on_the_element_index(gpu, draw):
    big = host(gpu, getattr(gpu, draw)((1000,), "float32", KEY, 9))
    small = host(gpu, getattr(gpu, draw)((3, 5), "float32", KEY, 9))
    odd = host(gpu, getattr(gpu, draw)((7,), "float32", KEY, 9))
    np.testing.assert_array_equal(small.reshape(-1), big[:15])
    np.testing.assert_array_equal(odd, big[:7])


@pytest.mark.parametrize("draw", ["random_uniform", "random_normal"])
def test_counters_and_keys_give_independent_streams(gpu, draw):
    n = 20000
    base = host(gpu, getattr(gpu, draw)((n,), "float64", KEY, 0))
    others = [host(gpu, getattr(gpu, draw)((n,), "float64", KEY, 1)),
              host(gpu, getattr(gpu, draw)((n,), "float64", KEY, 1 << 64)),
              host(gpu, getattr(gpu, draw)((n,), "float64", (KEY[0] + 1, KEY[1]), 0)),
              host(gpu, getattr(gpu, draw)((n,), "float64", (KEY[0], KEY[1] ^ 1), 0))]
    for other in others:
        assert not np.any(other == base)
        # Independent streams: sample correlation ~ N(0, 1/n); 5 sigma is 0.035.
        assert abs(np.corrcoef(base, other)[0, 1]) < 5 / math.sqrt(n)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_uniform_statistics(gpu, dtype):
    n = 200_000
    u = host(gpu, gpu.random_uniform((n,), dtype, KEY, 77)).astype("float64")
    assert u.min() >= 0.0 and u.max() < 1.0
    assert abs(u.mean() - 0.5) < 5 * math.sqrt(1 / 12 / n)
    assert abs(u.var() - 1 / 12) < 0.002
    ks = np.max(np.abs(np.sort(u) - (np.arange(n) + 0.5) / n))
    assert ks < 1.63 / math.sqrt(n) + (2.0 ** -11 if dtype == "float16" else 0.0)   # p=1%


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_normal_statistics(gpu, dtype):
    n = 200_000
    z = host(gpu, gpu.random_normal((n,), dtype, KEY, 78)).astype("float64")
    assert np.all(np.isfinite(z))
    assert abs(z.mean()) < 5 / math.sqrt(n)
    assert abs(z.std() - 1.0) < 0.01
    assert abs(np.mean(z ** 3)) < 5 * math.sqrt(15 / n)          # 5 sigma
    assert abs(np.mean(z ** 4) - 3.0) < 5 * math.sqrt(96 / n)
    cdf = 0.5 * (1.0 + np.vectorize(math.erf)(np.sort(z) / math.sqrt(2.0)))
    assert np.max(np.abs(cdf - (np.arange(n) + 0.5) / n)) < 1.63 / math.sqrt(n)


def test_random_shapes_scalar_and_empty(gpu):
    assert gpu.random_uniform((), "float32", KEY, 0).shape == ()
    assert gpu.random_normal((0, 3), "float64", KEY, 0).shape == (0, 3)


def test_random_rejects_bad_dtype_key_and_counter(gpu):
    with pytest.raises(DTypeError, match=r"random_uniform: expected a float dtype "
                                         r"\(float16, float32, float64\); received int32"):
        gpu.random_uniform((2,), "int32", KEY, 0)
    with pytest.raises(ValueError, match=r"random_normal: expected 'key' to be two integers "
                                         r"in \[0, 2\*\*64\); received \(-1, 0\)"):
        gpu.random_normal((2,), "float32", (-1, 0), 0)
    with pytest.raises(ValueError, match=r"random_normal: expected 'counter' in "
                                         r"\[0, 2\*\*128\); received -3"):
        gpu.random_normal((2,), "float32", KEY, -3)


# ----------------------------------------------------------------- elementwise
@pytest.mark.parametrize("dtype", FLOATS)
def test_erf_matches_math_erf(gpu, dtype):
    x = np.linspace(-6.0, 6.0, 301).astype(dtype)
    expected = np.vectorize(math.erf)(x.astype("float64"))
    actual = host(gpu, gpu.erf(gpu.asarray(x)))
    assert actual.dtype == dtype
    tol = dict(rtol=1e-14, atol=1e-15) if dtype == "float64" else dict(rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(actual, expected, **tol)
    out = gpu.xp.empty(x.shape, dtype=dtype)
    assert gpu.unary("erf", gpu.asarray(x), out=out) is out
    np.testing.assert_allclose(host(gpu, out), expected, **tol)


@pytest.mark.parametrize("dtype", FLOATS)
def test_fused_sigmoid_is_accurate_and_never_overflows(gpu, dtype):
    x = np.concatenate([np.linspace(-40.0, 40.0, 401), [-1000.0, 1000.0]]).astype(dtype)
    wide = x.astype("float64")
    expected = np.exp(-np.logaddexp(0.0, -wide))          # 1 / (1 + e^-x), stably
    actual = host(gpu, gpu.unary("sigmoid", gpu.asarray(x)))
    assert actual.dtype == dtype and np.all(np.isfinite(actual))
    tol = dict(rtol=1e-14, atol=0) if dtype == "float64" else dict(rtol=1e-6, atol=1e-30)
    np.testing.assert_allclose(actual, expected, **tol)
    out = gpu.xp.empty(x.shape, dtype=dtype)
    assert gpu.unary("sigmoid", gpu.asarray(x), out=out) is out
    np.testing.assert_allclose(host(gpu, out), expected, **tol)


def test_other_unary_kernels_come_from_the_base_class(gpu, cpu):
    x = _rng.uniform(0.5, 2.0, size=(3, 4))
    for fn in ("exp", "log", "rsqrt", "reciprocal", "tanh", "square"):
        close(host(gpu, gpu.unary(fn, gpu.asarray(x))), cpu.unary(fn, x), "float64")


# ----------------------------------------------------------------- memory and tensors
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int32", "int64",
                                   "uint8", "bool"])
def test_asarray_to_host_round_trip(gpu, dtype):
    data = (_rng.standard_normal((3, 4)) * 10).astype(dtype)
    device = gpu.asarray(data)
    assert gpu.is_array(device) and not isinstance(device, np.ndarray)
    assert lamina.backend.backend_of(device) is gpu
    back = gpu.to_host(device)
    assert isinstance(back, np.ndarray) and back.dtype == dtype
    np.testing.assert_array_equal(back, data)


def test_asarray_converts_dtype_and_python_data(gpu):
    assert host(gpu, gpu.asarray([1, 2, 3], dtype="float32")).dtype == "float32"
    np.testing.assert_array_equal(host(gpu, gpu.asarray([[1.5, 2.5]])), [[1.5, 2.5]])
    gpu.synchronize()


def test_device_names_the_gpu(gpu):
    assert gpu.name == "cupy" and gpu.device.startswith("cuda:")
    assert "cupy" in lamina.backend.available_backends()


def test_tensor_to_cupy_and_back():
    t = ops.convert_to_tensor(np.arange(6.0).reshape(2, 3))
    g = t.to("cupy")
    assert g.backend.name == "cupy" and g.device.startswith("cuda:")
    assert g.to("cupy") is g
    np.testing.assert_array_equal(g.numpy(), t.numpy())
    back = g.to("numpy")
    assert back.backend.name == "numpy"
    np.testing.assert_array_equal(back.numpy(), t.numpy())


def test_ops_run_on_cupy_tensors():
    with lamina.backend.use("cupy"):
        x = ops.convert_to_tensor([[1.0, 2.0], [3.0, 4.0]])
        y = ops.exp(ops.add(x, 1.0))
    assert x.backend.name == y.backend.name == "cupy"
    np.testing.assert_allclose(y.numpy(), np.exp(np.array([[2.0, 3.0], [4.0, 5.0]])),
                               rtol=1e-6)


def test_mixing_a_cupy_tensor_with_a_numpy_tensor_raises():
    cpu_tensor = ops.convert_to_tensor([1.0, 2.0])
    gpu_tensor = cpu_tensor.to("cupy")
    with pytest.raises(BackendError, match=r"add: inputs live on different backends "
                                           r"\((numpy and cupy|cupy and numpy)\)"):
        ops.add(gpu_tensor, cpu_tensor)
    with pytest.raises(BackendError, match="different backends"):
        ops.multiply(cpu_tensor, gpu_tensor)
