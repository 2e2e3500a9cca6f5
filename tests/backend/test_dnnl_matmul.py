"""Matrix products on oneDNN (lamina/backend/dnnl_matmul.py): float32 values against numpy,
bfloat16 against a float32 reference, int8 bit for bit against the float32-GEMM reference
path, the fallback with oneDNN off, and eager == graph under mixed_bfloat16 and int8.

Tolerances. float32: two float32 dot products of K terms each differ by at most
2 * K * 2**-24 * (|a| @ |b|) (each is within K * u * sum |a_i b_i| of the exact value).
bfloat16 results: that, plus the result's rounding to bfloat16, half an ulp:
2**-8 * |exact| (bfloat16 keeps 8 significant bits: 7 stored and the implicit one).
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.backend import dnnl_lib, dnnl_matmul, get_backend

ml_dtypes = pytest.importorskip("ml_dtypes")
BF16 = np.dtype(ml_dtypes.bfloat16)
U32 = 2.0 ** -24

needs_onednn = pytest.mark.skipif(dnnl_lib.runtime() is None,
                                  reason="oneDNN's library is absent or turned off")
needs_bf16 = pytest.mark.skipif(dnnl_lib.runtime() is None or not dnnl_matmul.native_bf16(),
                                reason="no oneDNN or no native bfloat16 (avx512_bf16/AMX)")
needs_int8 = pytest.mark.skipif(dnnl_lib.runtime() is None or not dnnl_matmul.exact_int8(),
                                reason="no oneDNN or no VNNI/AMX-INT8")


@pytest.fixture
def numpy_backend():
    with lamina.backend.use("numpy") as backend:
        yield backend


@pytest.fixture
def calls(monkeypatch):
    """The (kind, a.shape, b.shape) of every product oneDNN computed."""
    seen = []
    real = dnnl_matmul.matmul

    def spy(a, b, dtype, out=None, kind=None, min_work=None):
        result = real(a, b, dtype, out, kind, min_work)
        if result is not None:
            seen.append((a.dtype.name, a.shape, b.shape))
        return result
    monkeypatch.setattr(dnnl_matmul, "matmul", spy)
    return seen


def _float32_bound(a, b):
    k = a.shape[-1]
    return 2 * k * U32 * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)))


def _operands(rng, a_shape, b_shape, dtype, layout):
    """Operands of these logical shapes; ``layout`` "C", or "T" for transposed views."""
    def make(shape, transposed):
        if transposed:
            swapped = shape[:-2] + (shape[-1], shape[-2])
            return rng.standard_normal(swapped).astype(dtype).swapaxes(-1, -2)
        return rng.standard_normal(shape).astype(dtype)
    return make(a_shape, layout[0] == "T"), make(b_shape, layout[1] == "T")


SHAPES = [((128, 784), (784, 512)), ((1, 784), (784, 512)), ((784, 128), (128, 512)),
          ((4, 32, 96), (96, 200)), ((3, 70, 64), (3, 64, 90))]


# --------------------------------------------------------------------------- float32
@needs_onednn
@pytest.mark.parametrize("a_shape,b_shape", SHAPES)
@pytest.mark.parametrize("layout", ["CC", "TC", "CT", "TT"])
def test_float32_matches_numpy_within_rounding(a_shape, b_shape, layout):
    a, b = _operands(np.random.default_rng(0), a_shape, b_shape, np.float32, layout)
    got = dnnl_matmul.matmul(a, b, np.float32)
    assert got is not None and got.dtype == np.float32
    expected = np.matmul(a, b)
    assert got.shape == expected.shape
    assert np.all(np.abs(got - expected) <= _float32_bound(a, b))


@needs_onednn
def test_float32_into_out_and_refusals():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((64, 96)).astype(np.float32)
    b = rng.standard_normal((96, 80)).astype(np.float32)
    out = np.empty((64, 80), np.float32)
    assert dnnl_matmul.matmul(a, b, np.float32, out) is out
    assert np.all(np.abs(out - a @ b) <= _float32_bound(a, b))
    strided = np.empty((64, 160), np.float32)[:, ::2]          # not C-contiguous: a copy
    assert dnnl_matmul.matmul(a, b, np.float32, strided) is strided
    np.testing.assert_array_equal(strided, out)
    # too small to pay for the call, mixed dtypes, a 1-D operand, broadcast batches: None
    assert dnnl_matmul.matmul(a[:4, :4], b[:4, :4], np.float32) is None
    assert dnnl_matmul.matmul(a, b.astype(np.float64), np.float32) is None
    assert dnnl_matmul.matmul(a, b[:, 0], np.float32) is None
    assert dnnl_matmul.matmul(a[None].repeat(2, 0), b[None], np.float32) is None


# --------------------------------------------------------------------------- bfloat16
@needs_bf16
@pytest.mark.parametrize("a_shape,b_shape", SHAPES)
@pytest.mark.parametrize("layout", ["CC", "TC", "CT", "TT"])
def test_bfloat16_within_bfloat16_rounding_of_float32(a_shape, b_shape, layout, calls,
                                                      numpy_backend):
    a, b = _operands(np.random.default_rng(2), a_shape, b_shape, BF16, layout)
    got = numpy_backend.matmul(a, b)
    assert calls and got.dtype == BF16
    exact = np.matmul(a.astype(np.float64), b.astype(np.float64))
    bound = _float32_bound(a, b) + 2.0 ** -8 * np.abs(exact)
    assert np.all(np.abs(got.astype(np.float64) - exact) <= bound)
    # a float32 ``out``: the float32 sums, not rounded
    out = np.empty(got.shape, np.float32)
    assert numpy_backend.matmul(a, b, out=out) is out
    assert np.all(np.abs(out - exact) <= _float32_bound(a, b))


@needs_bf16
@pytest.mark.parametrize("a_shape,b_shape", SHAPES)
def test_bfloat16_bits_do_not_depend_on_layout(a_shape, b_shape, calls, numpy_backend):
    """A graph plan may hand over a materialized transpose where eager mode passes a view:
    the same bits either way."""
    a, b = _operands(np.random.default_rng(3), a_shape, b_shape, BF16, "CC")

    def columns(x):           # the same values with dense columns (a transposed view)
        return np.ascontiguousarray(x.swapaxes(-1, -2)).swapaxes(-1, -2)
    results = [numpy_backend.matmul(a_, b_).view(np.uint16)
               for a_, b_ in ((a, b), (columns(a), b), (a, columns(b)),
                              (columns(a), columns(b)))]
    assert len(calls) == 4
    for other in results[1:]:
        np.testing.assert_array_equal(other, results[0])


@needs_bf16
def test_bfloat16_out_and_the_flattened_batch(calls, numpy_backend):
    """An N-D input times a matrix is the product over its flattened rows (what the graph's
    fused dense computes): the same bits."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((4, 32, 96)).astype(BF16)
    w = rng.standard_normal((96, 200)).astype(BF16)
    y = numpy_backend.matmul(x, w)
    flat = numpy_backend.matmul(x.reshape(128, 96), w)
    np.testing.assert_array_equal(y.reshape(128, 200).view(np.uint16), flat.view(np.uint16))
    out = np.empty((4, 32, 200), BF16)
    assert numpy_backend.matmul(x, w, out=out) is out
    np.testing.assert_array_equal(out.view(np.uint16), y.view(np.uint16))
    assert len(calls) == 3


# --------------------------------------------------------------------------- int8
def _reference_int8(backend, monkeypatch, a, b):
    """The float32-GEMM path of int8_matmul.py (the reference)."""
    with monkeypatch.context() as patch:
        patch.setattr(backend, "onednn", False)
        return backend.int8_matmul(a, b)


def _int8_cases(rng):
    ints = lambda *shape: rng.integers(-128, 128, size=shape).astype(np.int8)  # noqa: E731
    big = lambda *shape: rng.integers(120, 128, size=shape).astype(np.int8)    # noqa: E731
    lowest = np.full((16, 1024), -128, np.int8)
    yield "mlp", ints(128, 784), ints(784, 512)
    yield "batch1", ints(1, 784), ints(784, 512)
    yield "lowest_K1024", lowest, np.full((1024, 64), -128, np.int8)  # 2**24 exactly
    yield "large_sums", big(64, 1024), big(1024, 64)
    yield "chunked_K1025", big(32, 1025), big(1025, 64)
    yield "chunked_K4096", big(8, 4096), big(4096, 8)   # sums above 2**24: chunks needed
    yield "chunked_K2500", ints(40, 2500), ints(2500, 30)
    yield "rows_by_matrix", ints(4, 40, 300), ints(300, 64)
    yield "batched", ints(3, 50, 300), ints(3, 300, 70)
    yield "transposed", ints(96, 300), ints(80, 300).T


@needs_int8
@pytest.mark.parametrize("name", [c[0] for c in _int8_cases(np.random.default_rng(0))])
def test_int8_equals_the_reference_bit_for_bit(name, numpy_backend, monkeypatch, calls):
    _, a, b = next(c for c in _int8_cases(np.random.default_rng(5)) if c[0] == name)
    got = numpy_backend.int8_matmul(a, b)
    assert calls, "oneDNN did not take the product"
    reference = _reference_int8(numpy_backend, monkeypatch, a, b)
    assert got.dtype == reference.dtype == np.int32
    np.testing.assert_array_equal(got, reference)
    exact = np.matmul(a.astype(np.int64), b.astype(np.int64))
    np.testing.assert_array_equal(got, exact)
    out = np.empty(got.shape, np.int32)
    assert numpy_backend.int8_matmul(a, b, out=out) is out
    np.testing.assert_array_equal(out, exact)


# --------------------------------------------------------------------------- fallback
@pytest.mark.parametrize("dtype", ["bfloat16", "int8"])
def test_backend_with_onednn_off_runs_the_numpy_path(dtype, numpy_backend, monkeypatch,
                                                     calls):
    monkeypatch.setattr(numpy_backend, "onednn", False)
    rng = np.random.default_rng(6)
    if dtype == "int8":
        a = rng.integers(-128, 128, (128, 784)).astype(np.int8)
        b = rng.integers(-128, 128, (784, 512)).astype(np.int8)
        got = numpy_backend.int8_matmul(a, b)
        np.testing.assert_array_equal(got, a.astype(np.int64) @ b.astype(np.int64))
    else:
        a = rng.standard_normal((128, 784)).astype(BF16)
        b = rng.standard_normal((784, 512)).astype(BF16)
        got = numpy_backend.matmul(a, b)
        widened = (a.astype(np.float32) @ b.astype(np.float32)).astype(BF16)
        np.testing.assert_array_equal(got.view(np.uint16), widened.view(np.uint16))
    assert calls == []


def test_lamina_onednn_0_turns_the_products_off():
    script = textwrap.dedent("""
        import numpy as np, ml_dtypes
        from lamina.backend import dnnl_lib, dnnl_matmul, get_backend
        assert dnnl_lib.runtime() is None
        backend = get_backend("numpy")
        rng = np.random.default_rng(0)
        a = rng.standard_normal((128, 784)).astype(ml_dtypes.bfloat16)
        b = rng.standard_normal((784, 512)).astype(ml_dtypes.bfloat16)
        assert dnnl_matmul.bf16_matmul(a, b, a.dtype) is None
        widened = (a.astype(np.float32) @ b.astype(np.float32)).astype(a.dtype)
        assert np.array_equal(backend.matmul(a, b).view(np.uint16), widened.view(np.uint16))
        i = rng.integers(-128, 128, (128, 784)).astype(np.int8)
        j = rng.integers(-128, 128, (784, 512)).astype(np.int8)
        assert dnnl_matmul.int8_matmul(i, j) is None
        assert np.array_equal(backend.int8_matmul(i, j), i.astype(np.int64) @ j)
        print("ok")
    """)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, LAMINA_ONEDNN="0", PYTHONPATH=root)
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=120, cwd=root)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


# --------------------------------------------------------------------------- eager == graph
def _dense_model(dtype):
    # 32 x 96 x 128 and 32 x 128 x 64 multiply-adds: above MIN_WORK, so oneDNN takes them
    return lamina.Sequential([
        layers.Input((96,)),
        layers.Dense(128, activation="relu", dtype=dtype),
        layers.Dense(64, activation="relu", dtype=dtype),
        layers.Dense(4, dtype=dtype)])


@needs_bf16
def test_mixed_bfloat16_dense_eager_equals_graph(numpy_backend, calls):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((32, 96)).astype(np.float32)
    y = rng.standard_normal((32, 4)).astype(np.float32)
    runs = {}
    for eager in (True, False):
        lamina.utils.set_random_seed(11)
        model = _dense_model("mixed_bfloat16")
        model.compile(optimizer="sgd", loss="mse", run_eagerly=eager)
        before = len(calls)
        prediction = model.predict(x, batch_size=32, verbose=0)
        history = model.fit(x, y, batch_size=32, epochs=2, shuffle=False, verbose=0)
        after = model.predict(x, batch_size=32, verbose=0)
        shapes = {c[1:] for c in calls[before:]}
        runs[eager] = prediction, history.history["loss"], model.get_weights(), after, shapes
    (p_e, loss_e, w_e, after_e, shapes_e), (p_g, loss_g, w_g, after_g, shapes_g) = \
        runs[True], runs[False]
    # both modes ran the forward and both backward products on oneDNN
    assert {((32, 96), (96, 128)), ((96, 32), (32, 128)), ((32, 64), (64, 128))} <= shapes_e
    assert shapes_e == shapes_g
    assert p_e.dtype == BF16
    np.testing.assert_array_equal(p_g.view(np.uint16), p_e.view(np.uint16))
    np.testing.assert_allclose(loss_g, loss_e, rtol=1e-4, atol=1e-5)
    for a, b in zip(w_g, w_e):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(after_g.astype(np.float32), after_e.astype(np.float32),
                               rtol=1e-2, atol=1e-2)


@needs_int8
def test_int8_dense_eager_equals_graph_and_the_reference(numpy_backend, monkeypatch, calls):
    rng = np.random.default_rng(8)
    x = rng.standard_normal((64, 96)).astype(np.float32)
    lamina.utils.set_random_seed(12)
    model = _dense_model("float32")
    model.build((None, 96))
    model.quantize("int8")
    predictions = {}
    for eager in (True, False):
        model.compile(loss="mse", run_eagerly=eager)
        before = len(calls)
        predictions[eager] = model.predict(x, batch_size=64, verbose=0)
        assert any(c[0] == "int8" for c in calls[before:])
    np.testing.assert_array_equal(predictions[False], predictions[True])
    monkeypatch.setattr(numpy_backend, "onednn", False)
    model.compile(loss="mse", run_eagerly=False)
    reference = model.predict(x, batch_size=64, verbose=0)
    np.testing.assert_array_equal(predictions[False], reference)


@pytest.mark.skipif(dnnl_lib.runtime() is None, reason="oneDNN is not loaded")
@pytest.mark.parametrize("m,k,n", [(128, 784, 512), (784, 128, 512), (64, 512, 10),
                                   (40, 300, 200)])
def test_float32_sgemm_gives_the_same_bits_for_any_operand_layout(m, k, n):
    """dnnl_sgemm (float32 matmuls of 32+ rows): transposed views, strided slices and
    copies of the same values give the same bits, and the values are numpy's to float32
    rounding; so eager mode (views) and a plan (its own buffers) agree."""
    from lamina.backend import dnnl_matmul
    rng = np.random.default_rng(3)
    a = rng.standard_normal((m, k)).astype("float32")
    b = rng.standard_normal((k, n)).astype("float32")
    want = dnnl_matmul.sgemm(a, b)
    assert want is not None
    np.testing.assert_allclose(want, a.astype("float64") @ b, rtol=2e-5,
                               atol=2e-5 * np.abs(a).max() * np.abs(b).max() * k ** 0.5)
    views = [(np.ascontiguousarray(a.T).T, b), (a, np.ascontiguousarray(b.T).T),
             (np.repeat(a, 2, axis=1)[:, ::2], b), (a, np.repeat(b, 2, axis=0)[::2])]
    for x, y in views:
        np.testing.assert_array_equal(dnnl_matmul.sgemm(x, y), want)
    out = np.full((m, n), np.nan, "float32")
    assert dnnl_matmul.sgemm(a, b, out) is out
    np.testing.assert_array_equal(out, want)
    stacked = dnnl_matmul.sgemm(a.reshape(2, m // 2, k), b)
    np.testing.assert_array_equal(stacked.reshape(m, n), want)


@needs_onednn
def test_a_plans_dense_step_binds_the_kernel_matmuls_rule_picks_for_its_rows():
    """Fewer rows than MIN_ROWS stay on numpy's matmul (bound directly: no dispatch per
    call); more rows, or a batch unknown until the plan runs, get the backend's matmul and
    its shape rule, as eager calls do."""
    from lamina.backend.numpy_backend import MIN_ROWS
    backend = get_backend("numpy")
    assert backend.bound_matmul("float32", "float32", rows=1) is np.matmul
    assert backend.bound_matmul("float32", "float32", rows=MIN_ROWS) == backend.matmul
    assert backend.bound_matmul("float32", "float32") == backend.matmul
    a = np.random.default_rng(0).standard_normal((MIN_ROWS - 1, 8)).astype("float32")
    b = np.random.default_rng(1).standard_normal((8, 5)).astype("float32")
    np.testing.assert_array_equal(backend.matmul(a, b), np.matmul(a, b))
