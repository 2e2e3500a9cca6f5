"""Winograd F(2,3) conv2d forward against the direct convolution (loop reference in float64).

Error bounds, measured on random N(0, 1) inputs with He-scaled filters (the scale of a
trained network's activations): the largest |winograd - exact| over max|exact| was
4.7e-7 in float32 (the direct im2col path: 2-3e-7) and 8.4e-16 in float64. The transforms
only add, subtract and halve, so the error grows like the direct path's, by at most a few
ulps of the partial sums; the asserted bounds leave a 10x margin over the measurements.
"""
import numpy as np
import pytest

import lamina.backend.winograd as winograd_module
from lamina import ops
from lamina.backend.numpy_backend import NumpyBackend
from lamina.backend.winograd import winograd_applies
from tests.harness import case, rand, run_case
from tests.ops.test_conv import ref_conv, ref_conv2d



@pytest.fixture(autouse=True)
def small_channels(monkeypatch):
    """Winograd from 16 channels on (the default threshold is 32), to keep the loop
    references and numeric gradients quick; test_winograd_applies_rule checks the real one."""
    monkeypatch.setattr(winograd_module, "MIN_CHANNELS", 16)


BOUNDS = {np.float32: 5e-6, np.float64: 1e-14}

# (x shape, channels out, pads): even and odd outputs, 'valid', uneven and large pads.
CASES = [
    ((3, 8, 8, 16), 16, ((1, 1), (1, 1))),
    ((2, 7, 9, 16), 20, ((1, 1), (1, 1))),
    ((2, 7, 6, 17), 16, ((0, 0), (0, 0))),
    ((2, 5, 5, 16), 18, ((2, 0), (0, 3))),
    ((5, 6, 5, 16), 16, ((1, 1), (1, 1))),
]
IDS = ["same-even", "same-odd", "valid", "uneven-pads", "batch-blocks"]


def _data(x_shape, k, dtype, seed=0):
    rng = np.random.default_rng(seed)
    c = x_shape[3]
    x = rng.standard_normal(x_shape)
    w = rng.standard_normal((3, 3, c, k)) * np.sqrt(2.0 / (9 * c))
    return x.astype(dtype), w.astype(dtype)


def _conv(backend, x, w, pads, use_winograd):
    backend.winograd = use_winograd
    return backend.conv2d(x, w, (1, 1), pads, (1, 1), 1)


@pytest.mark.parametrize("threads", [1, 3], ids=["1-thread", "3-threads"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("x_shape,k,pads", CASES, ids=IDS)
def test_winograd_matches_exact_convolution(x_shape, k, pads, dtype, threads, monkeypatch):
    monkeypatch.setattr(winograd_module, "_threads", lambda: threads)
    x, w = _data(x_shape, k, dtype)
    exact = ref_conv2d(x.astype(np.float64), w.astype(np.float64), pads=pads)
    # Blocks of 2 samples (16 x tiles x max(C, K) each), so odd batches end with a partial
    # one; with 3 threads, the batch-blocks case splits 5 samples as 2 + 2 + 1.
    tiles = ((exact.shape[1] + 1) // 2) * ((exact.shape[2] + 1) // 2)
    monkeypatch.setattr(winograd_module, "_BLOCK_BYTES",
                        2 * 16 * tiles * max(x_shape[3], k) * np.dtype(dtype).itemsize)
    y = _conv(NumpyBackend(), x, w, pads, True)
    assert y.dtype == dtype and y.shape == exact.shape
    error = np.abs(y - exact).max() / np.abs(exact).max()
    assert error < BOUNDS[dtype]


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
def test_winograd_matches_direct_with_negative_pads_and_out(dtype):
    x, w = _data((2, 9, 8, 16), 16, dtype, seed=1)
    pads = ((-1, 1), (1, -2))
    backend = NumpyBackend()
    direct = _conv(backend, x, w, pads, False)
    out = np.full(direct.shape, np.nan, dtype=dtype)
    backend.winograd = True
    y = backend.conv2d(x, w, (1, 1), pads, (1, 1), 1, out=out)
    assert y is out
    assert np.abs(y - direct).max() / np.abs(direct).max() < BOUNDS[dtype]


def test_switch_and_dispatch_rule(monkeypatch):
    calls = []
    original = NumpyBackend._winograd_conv2d

    def spy(self, *args):
        calls.append(args[0].shape)
        return original(self, *args)

    monkeypatch.setattr(NumpyBackend, "_winograd_conv2d", spy)
    backend = NumpyBackend()
    backend.onednn = False                             # Winograd is a numpy-kernel path
    assert backend.winograd is False                   # opt-in (see numpy_backend.py)
    x, w = _data((1, 6, 6, 16), 16, np.float32)
    pads = ((1, 1), (1, 1))
    _conv(backend, x, w, pads, True)
    assert calls == [(1, 6, 6, 16)]
    _conv(backend, x, w, pads, False)                  # switched off: the direct path
    backend.winograd = True
    backend.conv2d(x, w, (2, 2), pads, (1, 1), 1)      # stride 2: direct
    backend.conv2d(x, w, (1, 1), pads, (2, 2), 1)      # dilated: direct
    backend.conv2d(x, w[:, :, :8], (1, 1), pads, (1, 1), 2)   # grouped: direct
    assert calls == [(1, 6, 6, 16)]


def test_winograd_applies_rule(monkeypatch):
    monkeypatch.setattr(winograd_module, "MIN_CHANNELS", 32)
    f32, f64, f16 = np.dtype("float32"), np.dtype("float64"), np.dtype("float16")
    args = ((1, 1), (1, 1), 1)
    assert winograd_applies((64, 32, 32, 32), (3, 3, 32, 32), *args, f32, 4)
    assert winograd_applies((64, 32, 32, 32), (3, 3, 32, 32), *args, f64, 8)
    assert not winograd_applies((64, 32, 32, 3), (3, 3, 3, 32), *args, f32, 4)   # few channels
    assert not winograd_applies((64, 32, 32, 16), (3, 3, 16, 16), *args, f32, 4)
    assert not winograd_applies((64, 32, 32, 64), (3, 3, 64, 16), *args, f32, 4)
    assert not winograd_applies((64, 32, 32, 32), (5, 5, 32, 32), *args, f32, 4)
    assert not winograd_applies((64, 32, 32, 32), (3, 3, 32, 32), *args, f16, 2)
    assert not winograd_applies((64, 32, 32, 32), (3, 3, 32, 32), (1, 1), (1, 1), 1,
                                np.dtype("int32"), 4)


def test_conv2d_op_through_winograd_eager_graph_and_gradient(monkeypatch):
    """The op harness on a shape that takes the Winograd path: float64/float32 forward
    against the loop reference, the numeric gradient, and lamina.jit equal to eager."""
    calls = []
    original = NumpyBackend._winograd_conv2d
    monkeypatch.setattr(NumpyBackend, "winograd", True)         # opt in for this test
    monkeypatch.setattr(NumpyBackend, "_winograd_conv2d",
                        lambda self, *a: calls.append(1) or original(self, *a))
    run_case(case("conv2d", lambda x, w: ops.conv2d(x, w, padding="same"),
                  lambda x, w: ref_conv(x, w, padding="same"),
                  [rand(2, 3, 5, 16), rand(3, 3, 16, 16) / 12], label="winograd"))
    assert calls
