"""oneDNN's convolution and pooling kernels (dnnl_conv.py, dnnl_pool.py) against float64
references and against the numpy kernels (the same backend with ``onednn`` off).

Bound used against the float64 reference: |got - ref| <= 2e-5 * max|ref| (float32 sums of
up to a few hundred products in another order); bfloat16: 2e-2 * max|ref|. Max pooling
forward is exact; its gradient routes to the same (first) maximum, so only overlapping
windows' sums differ, by float32 rounding.
"""
import os
import platform
import subprocess
import sys

import numpy as np
import pytest

from lamina.backend import dnnl_lib
from lamina.backend.numpy_backend import NumpyBackend
from tests.backend.test_conv_kernels import GEOMETRIES, IDS, POOLS, _pads
from tests.ops.test_conv import ref_backprop_filter, ref_backprop_input, ref_conv2d
from tests.ops.test_pooling import ref_avg_backprop, ref_max_backprop, ref_pool

rng = np.random.default_rng(7)
LINUX_X86 = sys.platform.startswith("linux") and platform.machine() in ("x86_64", "AMD64")
needs_onednn = pytest.mark.skipif(
    dnnl_lib.runtime() is None,
    reason="oneDNN's library is not loaded (LAMINA_ONEDNN=0, or not Linux x86-64)")


def backends():
    on, off = NumpyBackend(), NumpyBackend()
    off.onednn = False
    return on, off


def close(got, ref, bound=2e-5):
    scale = max(float(np.abs(ref).max()), 1e-30)
    err = float(np.abs(np.asarray(got, dtype="float64") - ref).max())
    assert err <= bound * scale, f"max error {err:.3g} > {bound} * {scale:.3g}"


def ran_on_onednn(kind):
    """Whether a non-reference oneDNN primitive of ``kind`` is in the cache."""
    return any(key[0] == kind and value is not None
               for key, value in dnnl_lib.CACHE.items())


@pytest.mark.skipif(not LINUX_X86 or os.environ.get("LAMINA_ONEDNN") == "0",
                    reason="oneDNN is a dependency on Linux x86-64 only")
def test_the_library_loads_on_linux_x86_64():
    rt = dnnl_lib.runtime()
    assert rt is not None, "pip install . should bring onednn-cpu-gomp on Linux x86-64"
    assert NumpyBackend.onednn


@needs_onednn
@pytest.mark.parametrize("geometry", GEOMETRIES, ids=IDS)
def test_convolutions_match_the_reference_and_the_numpy_kernels(geometry):
    x_shape, w_shape, strides, pads, dilation, groups = geometry
    x, w = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    y_ref = ref_conv2d(x, w, strides, pads, dilation, groups)
    dy = rng.standard_normal(y_ref.shape)
    refs = (y_ref, ref_backprop_input(dy, w, x_shape, strides, pads, dilation, groups),
            ref_backprop_filter(x, dy, w_shape, strides, pads, dilation, groups))
    x32, w32, dy32 = (a.astype("float32") for a in (x, w, dy))
    dnnl_lib.clear_cache()
    results = []
    for b in backends():
        results.append((
            b.conv2d(x32, w32, strides, pads, dilation, groups),
            b.conv2d_backprop_input(dy32, w32, x_shape, strides, pads, dilation, groups),
            b.conv2d_backprop_filter(x32, dy32, w_shape, strides, pads, dilation, groups)))
    for kind in ("conv", "conv_bwd_data", "conv_bwd_weights"):
        assert ran_on_onednn(kind), kind
    for on, off, ref in zip(*results, refs):
        assert on.dtype == np.float32 and on.shape == ref.shape
        close(on, ref)
        close(on, off.astype("float64"))


@needs_onednn
def test_bfloat16_convolutions():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    on, _ = backends()
    x, w = rng.standard_normal((4, 9, 9, 16)), rng.standard_normal((3, 3, 16, 32))
    pads = ((1, 1), (1, 1))
    xb, wb = x.astype(ml_dtypes.bfloat16), w.astype(ml_dtypes.bfloat16)
    y = on.conv2d(xb, wb, (1, 1), pads, (1, 1), 1)
    assert y.dtype == ml_dtypes.bfloat16
    close(y.astype("float64"), ref_conv2d(xb.astype("float64"), wb.astype("float64"),
                                          (1, 1), pads), bound=2e-2)


@needs_onednn
def test_runs_repeat_bit_for_bit_and_write_into_out():
    on, _ = backends()
    x = rng.standard_normal((8, 12, 12, 16)).astype("float32")
    w = rng.standard_normal((3, 3, 16, 24)).astype("float32")
    dy = rng.standard_normal((8, 12, 12, 24)).astype("float32")
    args = ((1, 1), ((1, 1), (1, 1)), (1, 1), 1)
    first = [on.conv2d(x, w, *args), on.conv2d_backprop_input(dy, w, x.shape, *args),
             on.conv2d_backprop_filter(x, dy, w.shape, *args)]
    for _ in range(3):
        again = [on.conv2d(x, w, *args), on.conv2d_backprop_input(dy, w, x.shape, *args),
                 on.conv2d_backprop_filter(x, dy, w.shape, *args)]
        for a, b in zip(first, again):
            np.testing.assert_array_equal(a, b)
    out = np.full(first[0].shape, np.nan, "float32")
    assert on.conv2d(x, w, *args, out=out) is out
    np.testing.assert_array_equal(out, first[0])
    wide = np.full(first[2].shape[:-1] + (48,), np.nan, "float32")
    on.conv2d_backprop_filter(x, dy, w.shape, *args, out=wide[..., ::2])
    np.testing.assert_array_equal(wide[..., ::2], first[2])


@needs_onednn
def test_cases_oneDNN_refuses_run_on_the_numpy_kernels():
    on, _ = backends()
    dnnl_lib.clear_cache()
    x, w = rng.standard_normal((2, 6, 5, 3)), rng.standard_normal((2, 2, 3, 2))
    on.conv2d(x, w, (1, 1), ((0, 0), (0, 0)), (1, 1), 1)            # float64
    x32, w32 = x.astype("float32"), w.astype("float32")
    y = on.conv2d(x32, w32, (1, 1), ((-1, 2), (0, -1)), (1, 1), 1)  # negative pads
    assert not dnnl_lib.CACHE
    close(y, ref_conv2d(x[:, 1:, :4], w, (1, 1), ((0, 2), (0, 0))))


@needs_onednn
def test_switched_off_backend_never_calls_oneDNN():
    _, off = backends()
    dnnl_lib.clear_cache()
    x = rng.standard_normal((2, 6, 6, 3)).astype("float32")
    w = rng.standard_normal((3, 3, 3, 4)).astype("float32")
    off.conv2d(x, w, (1, 1), ((1, 1), (1, 1)), (1, 1), 1)
    off.pool2d(x, "max", (2, 2), (2, 2), ((0, 0), (0, 0)))
    assert not dnnl_lib.CACHE


def test_LAMINA_ONEDNN_0_turns_the_library_off():
    code = ("from lamina.backend import dnnl_lib; import numpy as np; import lamina;"
            "from lamina.backend.numpy_backend import NumpyBackend as B;"
            "x = np.ones((1, 4, 4, 2), 'float32'); w = np.ones((3, 3, 2, 1), 'float32');"
            "y = B().conv2d(x, w, (1, 1), ((1, 1), (1, 1)), (1, 1), 1);"
            "print(dnnl_lib.runtime() is None, float(y[0, 1, 1, 0]))")
    env = dict(os.environ, LAMINA_ONEDNN="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=120, check=True).stdout.split()
    assert out == ["True", "18.0"]


@needs_onednn
@pytest.mark.parametrize("x_shape,pool,strides,padding", POOLS)
def test_pooling_matches_the_reference(x_shape, pool, strides, padding):
    on, off = backends()
    x = rng.standard_normal(x_shape)
    x[0, 0, :3] = 0.0                                   # ties
    pads = _pads(padding, x_shape[1:3], pool, strides)
    x32 = x.astype("float32")
    dnnl_lib.clear_cache()
    for fn in ("max", "avg"):
        y, numpy_y = on.pool2d(x32, fn, pool, strides, pads), off.pool2d(x32, fn, pool,
                                                                          strides, pads)
        if fn == "max":
            np.testing.assert_array_equal(y, numpy_y)
        else:   # sums in another order (equal after .round(5) failed across a rounding edge)
            close(y, numpy_y.astype("float64"))
        close(y, ref_pool(x32.astype("float64"), fn, pool, strides, padding))
    assert ran_on_onednn("pool")
    y = on.pool2d(x32, "max", pool, strides, pads)
    dy = rng.standard_normal(y.shape)
    dx = on.max_pool2d_backprop(x32, y, dy.astype("float32"), pool, strides, pads)
    close(dx, ref_max_backprop(x32.astype("float64"), dy, pool, strides, padding))
    dxa = on.avg_pool2d_backprop(dy.astype("float32"), x_shape, pool, strides, pads)
    close(dxa, ref_avg_backprop(dy, x_shape, pool, strides, padding))
    assert ran_on_onednn("max_pool_grad") and ran_on_onednn("avg_pool_grad")


@needs_onednn
@pytest.mark.parametrize("activation", ["linear", "relu"])
def test_bias_and_relu_post_ops_give_the_bits_of_the_separate_steps(activation):
    """conv2d_bias_act's one oneDNN pass against conv2d, then ``+ bias`` and ``y * (y > 0)``
    (what eager mode and the fused op's general epilogue compute)."""
    on, _ = backends()
    for x_shape, w_shape, groups in [((16, 12, 12, 3), (3, 3, 3, 32), 1),
                                      ((8, 10, 10, 32), (3, 3, 32, 64), 1),
                                      ((4, 9, 9, 8), (3, 3, 4, 12), 2)]:
        x = rng.standard_normal(x_shape).astype("float32")
        w = rng.standard_normal(w_shape).astype("float32")
        bias = rng.standard_normal(w_shape[3]).astype("float32")
        args = ((1, 1), ((1, 1), (1, 1)), (1, 1), groups)
        want = on.conv2d(x, w, *args) + bias
        if activation == "relu":
            want = want * (want > 0)
        got = on.conv2d_bias_act(x, w, bias, *args, activation)
        np.testing.assert_array_equal(got, want)
    assert on.conv2d_bias_act(x, w, bias, *args, "sigmoid") is None   # not bit-equal: numpy
