"""bfloat16 through ml_dtypes: Keras-written bfloat16 files load (and Lamina writes them
as Keras does), mixed_bfloat16 layers compute in bfloat16, a mixed_bfloat16 fit is the
same in graph and eager mode, and the numpy backend never runs a 16-bit matmul natively."""
from __future__ import annotations

import os

import numpy as np
import pytest

import lamina
from lamina import dtypes, layers, ops
from lamina.errors import DTypeError

ml_dtypes = pytest.importorskip("ml_dtypes")

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "mixed_precision")
REF = np.load(os.path.join(HERE, "bfloat16_ref.npz"))


def _mlp(dtype):
    return lamina.Sequential([layers.Input((5,)),
                              layers.Dense(8, activation="relu", dtype=dtype),
                              layers.Dense(3, dtype=dtype)])


@pytest.mark.parametrize("tag,dtype,weight_dtype", [
    ("bf16", "bfloat16", "bfloat16"), ("mixed_bf16", "mixed_bfloat16", "float32")])
def test_keras_written_bfloat16_weights_load(tag, dtype, weight_dtype):
    model = _mlp(dtype)
    model.load_weights(os.path.join(HERE, f"{tag}_mlp.weights.h5"))
    weights = model.get_weights()
    assert [str(w.dtype) for w in weights] == [weight_dtype] * 4
    assert [str(REF[f"{tag}_w{i}_dtype"]) for i in range(4)] == [weight_dtype] * 4
    for i, w in enumerate(weights):
        np.testing.assert_array_equal(w.astype("float32"), REF[f"{tag}_w{i}"])
    prediction = model.predict(REF["x"], verbose=0)
    assert str(prediction.dtype) == str(REF[f"{tag}_pred_dtype"]) == "bfloat16"
    # Keras's XLA also multiplies in float32 and rounds once: the same bfloat16 numbers
    np.testing.assert_array_equal(prediction.astype("float32"), REF[f"{tag}_pred"])


def test_keras_written_mixed_bfloat16_model_loads():
    model = lamina.saving.load_model(os.path.join(HERE, "mixed_bf16_mlp.keras"))
    assert [layer.dtype_policy.name for layer in model.layers] == ["mixed_bfloat16"] * 2
    prediction = model.predict(REF["x"], verbose=0)
    np.testing.assert_array_equal(prediction.astype("float32"), REF["mixed_bf16_pred"])


def test_bfloat16_weights_written_as_keras_writes(tmp_path):
    import h5py
    model = _mlp("bfloat16")
    model.load_weights(os.path.join(HERE, "bf16_mlp.weights.h5"))
    path = str(tmp_path / "bf16.weights.h5")
    model.save_weights(path)
    with h5py.File(path, "r") as f:
        dataset = f["layers/dense/vars/0"]
        assert dataset.attrs["dtype"] == "bfloat16" and dataset.dtype.itemsize == 2
    again = _mlp("bfloat16")
    again.load_weights(path)
    for a, b in zip(again.get_weights(), model.get_weights()):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


def test_missing_ml_dtypes_names_the_extra(monkeypatch, tmp_path):
    monkeypatch.setattr(dtypes, "_bfloat16_available", False)
    message = r"dtype 'bfloat16' needs the optional package ml_dtypes; install it with " \
              r"`pip install lamina\[bfloat16\]`"
    with pytest.raises(DTypeError, match=message):
        layers.Dense(2, dtype="mixed_bfloat16")
    with pytest.raises(DTypeError, match=message):
        ops.cast(ops.ones((2,)), "bfloat16")
    model = _mlp("float32")
    with pytest.raises(DTypeError, match=message):
        model.load_weights(os.path.join(HERE, "bf16_mlp.weights.h5"))


def test_promotion_with_float16():
    assert lamina.backend.result_type("bfloat16", "float16") == "float32"
    assert lamina.backend.result_type("bfloat16", "float32") == "float32"
    assert lamina.backend.result_type("int32", "bfloat16") == "bfloat16"
    assert dtypes.itemsize("bfloat16") == 2


def test_mixed_bfloat16_layers_compute_in_bfloat16():
    layer = layers.Conv2D(3, 3, padding="same", dtype="mixed_bfloat16")
    x = np.random.default_rng(0).normal(size=(2, 5, 5, 2)).astype("float32")
    y = layer(x)
    assert y.dtype == "bfloat16" and [w.dtype for w in layer.weights] == ["float32"] * 2
    kernel, bias = layer.get_weights()
    reference = layers.Conv2D(3, 3, padding="same", dtype="float32")
    reference(x)
    rounded = [w.astype("bfloat16").astype("float32") for w in (kernel, bias)]
    reference.set_weights(rounded)
    expected = ops.convert_to_numpy(reference(x.astype("bfloat16").astype("float32")))
    np.testing.assert_allclose(ops.convert_to_numpy(y).astype("float32"), expected,
                               rtol=1e-2, atol=1e-2)


def _mixed_model():
    return lamina.Sequential([
        layers.Input((6, 6, 2)),
        layers.Conv2D(3, 3, activation="relu", dtype="mixed_bfloat16"),
        layers.Flatten(dtype="mixed_bfloat16"),
        layers.Dense(8, activation="relu", dtype="mixed_bfloat16"),
        layers.Dense(3, dtype="mixed_bfloat16"),
        layers.Activation("softmax", dtype="float32")])


def test_mixed_bfloat16_fit_graph_equals_eager():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(16, 6, 6, 2)).astype("float32")
    y = rng.integers(0, 3, size=16)
    results = {}
    for eager in (True, False):
        lamina.utils.set_random_seed(3)
        model = _mixed_model()
        model.compile("adam", "sparse_categorical_crossentropy", run_eagerly=eager)
        start = [w.copy() for w in model.get_weights()]
        history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
        results[eager] = (model.get_weights(), history.history["loss"], start)
        assert not isinstance(model.optimizer, lamina.optimizers.LossScaleOptimizer)
        assert all(w.dtype == np.float32 for w in model.get_weights())
    (w_eager, loss_eager, start), (w_graph, loss_graph, _) = results[True], results[False]
    assert any(not np.array_equal(a, b) for a, b in zip(w_eager, start))
    np.testing.assert_allclose(loss_graph, loss_eager, rtol=1e-4, atol=1e-5)
    for a, b in zip(w_graph, w_eager):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_numpy_backend_never_multiplies_16_bit_natively(monkeypatch, dtype):
    """Every numpy matmul that a 16-bit matmul, convolution or sum reaches gets float32
    operands (numpy's half-precision matmul is a scalar loop, 62-467x slower)."""
    backend = lamina.backend.get_backend("numpy")
    seen = []
    real = np.matmul

    def spy(a, b, *args, **kwargs):
        seen.append((a.dtype.name, b.dtype.name))
        return real(a, b, *args, **kwargs)

    monkeypatch.setattr(np, "matmul", spy)
    rng = np.random.default_rng(0)
    a = rng.normal(size=(6, 4)).astype(dtype)
    b = rng.normal(size=(4, 3)).astype(dtype)
    product = backend.matmul(a, b)
    out = np.empty((6, 3), dtype)
    assert backend.matmul(a, b, out=out) is out
    x = rng.normal(size=(2, 5, 5, 3)).astype(dtype)
    w = rng.normal(size=(3, 3, 3, 4)).astype(dtype)
    y = backend.conv2d(x, w, (1, 1), ((1, 1), (1, 1)), (1, 1), 1)
    dx = backend.conv2d_backprop_input(y, w, x.shape, (1, 1), ((1, 1), (1, 1)), (1, 1), 1)
    dw = backend.conv2d_backprop_filter(x, y, w.shape, (1, 1), ((1, 1), (1, 1)), (1, 1), 1)
    total = backend.reduce("sum", x.reshape(10, 15), 0, False)
    assert seen and all(pair == ("float32", "float32") for pair in seen)
    assert {product.dtype.name, out.dtype.name, y.dtype.name, dx.dtype.name,
            dw.dtype.name, total.dtype.name} == {dtype}
    expected = (a.astype("float32") @ b.astype("float32")).astype(dtype)
    np.testing.assert_array_equal(product, expected)
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(
        total, x.reshape(10, 15).astype("float32").sum(0).astype(dtype))
