"""The whole-sequence RNN kernels (lamina/backend/dnnl_rnn.py): oneDNN's LSTM, GRU and
linear-before-reset GRU against the reference loop of rnn_reference.py (float32 rounding
of another summation order: rtol 1e-5, atol 2e-6 forward; 1e-4 of the gradient's scale
backward), in both directions, with and without bias; outputs written into given buffers
(filled with NaN: nothing may be read or accumulated from them); primitives made once per
shape; the reference where oneDNN is off or the dtype is not float32."""
import numpy as np
import pytest

from lamina.backend import dnnl_rnn, get_backend, rnn_reference
from lamina.backend import dnnl_lib

pytestmark = pytest.mark.skipif(dnnl_lib.runtime() is None,
                                reason="oneDNN's library is not loaded")
GATES = {"lstm": 4, "gru": 3, "lbr_gru": 3}


def _case(cell, bias=True, n=3, t=6, c=5, h=4, dtype="float32", seed=0):
    rng = np.random.default_rng(seed)
    g = GATES[cell]

    def r(*shape, scale=0.5):
        return (rng.standard_normal(shape) * scale).astype(dtype)
    b = None
    if bias:
        b = r(2, 3 * h) if cell == "lbr_gru" else r(g * h)
    return dict(x=r(n, t, c, scale=1.0), h0=r(n, h), c0=r(n, h) if cell == "lstm" else None,
                kernel=r(c, g * h), recurrent_kernel=r(h, g * h), bias=b)


def _run(impl, backend, cell, a, reverse, grads_seed=1):
    fwd = impl.forward if impl is rnn_reference else impl.rnn_forward
    bwd = impl.backward if impl is rnn_reference else impl.rnn_backward
    outs = fwd(backend, cell, a["x"], a["h0"], a["c0"], a["kernel"], a["recurrent_kernel"],
               a["bias"], reverse)
    lstm = cell == "lstm"
    rng = np.random.default_rng(grads_seed)
    dy = rng.standard_normal(outs[0].shape).astype(outs[0].dtype)
    dh = rng.standard_normal(outs[1].shape).astype(outs[0].dtype)
    dc = rng.standard_normal(outs[1].shape).astype(outs[0].dtype) if lstm else None
    grads = bwd(backend, cell, a["x"], a["h0"], a["c0"], a["kernel"], a["recurrent_kernel"],
                a["bias"], outs[0], outs[1], outs[2] if lstm else None, outs[-1], dy, dh,
                dc, reverse)
    return outs[:-1], grads


@pytest.mark.parametrize("cell", ["lstm", "gru", "lbr_gru"])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("bias", [True, False])
def test_onednn_matches_the_reference_loop(cell, reverse, bias):
    backend = get_backend("numpy")
    a = _case(cell, bias)
    outs, grads = _run(dnnl_rnn, backend, cell, a, reverse)
    ref_outs, ref_grads = _run(rnn_reference, backend, cell, a, reverse)
    assert len(grads) == len(ref_grads) == 4 + (cell == "lstm") + bias
    for o, r in zip(outs, ref_outs):
        np.testing.assert_allclose(o, r, rtol=1e-5, atol=2e-6)
    for g, r in zip(grads, ref_grads):
        assert g.shape == r.shape and g.dtype == np.float32
        np.testing.assert_allclose(g, r, rtol=1e-4, atol=1e-4 * np.abs(r).max())


def test_onednn_really_runs_and_reports_its_implementation():
    impl = dnnl_rnn.implementation("lstm", (3, 6, 5), 4)
    assert impl is not None and all(isinstance(name, str) and name for name in impl)
    size = dnnl_rnn.workspace_bytes("lstm", (3, 6, 5), 4)
    assert size >= rnn_reference.workspace_bytes("lstm", 4, (3, 6, 5), 4)
    assert dnnl_rnn.workspace_bytes("lstm", (3, 6, 5), 4, dtype="float64") == \
        rnn_reference.workspace_bytes("lstm", 8, (3, 6, 5), 4)


@pytest.mark.parametrize("cell", ["lstm", "lbr_gru"])
def test_outputs_go_into_given_buffers_without_reading_them(cell):
    backend = get_backend("numpy")
    a = _case(cell)
    expected, expected_grads = _run(dnnl_rnn, backend, cell, a, False)
    n, t, _ = a["x"].shape
    h = a["recurrent_kernel"].shape[0]
    lstm = cell == "lstm"
    ws = np.full(dnnl_rnn.workspace_bytes(cell, a["x"].shape, h), 255, np.uint8)
    outs = [np.full((n, t, h), np.nan, "f4"), np.full((n, h), np.nan, "f4")] + \
        ([np.full((n, h), np.nan, "f4")] if lstm else []) + [ws]
    got = dnnl_rnn.rnn_forward(backend, cell, a["x"], a["h0"], a["c0"], a["kernel"],
                               a["recurrent_kernel"], a["bias"], False, tuple(outs))
    assert all(g is o for g, o in zip(got, outs))
    for o, e in zip(outs, expected):
        np.testing.assert_array_equal(o, e)
    rng = np.random.default_rng(1)                        # the gradients _run used
    dy = rng.standard_normal(outs[0].shape).astype("f4")
    dh = rng.standard_normal(outs[1].shape).astype("f4")
    dc = rng.standard_normal(outs[1].shape).astype("f4") if lstm else None
    buffers = tuple(np.full(e.shape, np.nan, "f4") for e in expected_grads)
    grads = dnnl_rnn.rnn_backward(backend, cell, a["x"], a["h0"], a["c0"], a["kernel"],
                                  a["recurrent_kernel"], a["bias"], outs[0], outs[1],
                                  outs[2] if lstm else None, ws, dy, dh, dc, False, buffers)
    assert all(g is b for g, b in zip(grads, buffers))
    for g, e in zip(grads, expected_grads):
        np.testing.assert_array_equal(g, e)


def test_primitives_are_made_once_per_shape_and_reused():
    a = _case("gru", n=2, t=4, c=3, h=2, seed=5)
    backend = get_backend("numpy")
    first = dnnl_rnn._sequence("gru", a["x"].shape, 2, False)
    _run(dnnl_rnn, backend, "gru", a, False)
    _run(dnnl_rnn, backend, "gru", a, False)
    assert dnnl_rnn._sequence("gru", a["x"].shape, 2, False) is first
    assert dnnl_rnn._sequence("gru", (3, 4, 3), 2, False) is not first


def test_reference_runs_where_onednn_is_off_or_the_dtype_is_not_float32():
    backend = get_backend("numpy")
    a = _case("lstm")
    assert dnnl_rnn.available(backend, "float32")
    assert not dnnl_rnn.available(backend, "float64")
    ref_outs, _ = _run(rnn_reference, backend, "lstm", a, False)
    backend.onednn = False
    try:
        assert not dnnl_rnn.available(backend, "float32")
        outs, _ = _run(dnnl_rnn, backend, "lstm", a, False)
    finally:
        backend.onednn = True
    for o, r in zip(outs, ref_outs):
        np.testing.assert_array_equal(o, r)           # the very same loop: same bits
    a64 = _case("lstm", dtype="float64")
    outs64, grads64 = _run(dnnl_rnn, backend, "lstm", a64, True)
    ref64, ref_grads64 = _run(rnn_reference, backend, "lstm", a64, True)
    assert outs64[0].dtype == np.float64
    for o, r in zip(list(outs64) + list(grads64), list(ref64) + list(ref_grads64)):
        np.testing.assert_array_equal(o, r)


def test_small_cases_run_on_one_thread():
    """The RNN primitives take the thread rule of every oneDNN kernel (dnnl_lib.use_threads):
    one thread for a small case, every core for a large one."""
    small = dnnl_rnn._sequence("lstm", (3, 6, 5), 4, False)
    large = dnnl_rnn._sequence("lstm", (64, 2, 5), 256, False)
    assert small.one_thread and not large.one_thread
    assert small.forward.work < dnnl_lib.SMALL_WORK <= large.forward.work
    _run(dnnl_rnn, get_backend("numpy"), "lstm", _case("lstm"), False)
    assert dnnl_lib._threads.count == 1
