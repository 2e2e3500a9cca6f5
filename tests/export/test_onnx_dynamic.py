"""Unknown sizes other than the batch (sequence length) stay dynamic in the ONNX file: one
file runs several batch sizes and lengths; and a whole application model exports."""
import numpy as np
import pytest

from tests.export.onnx_helpers import onnx, session
import lamina
from lamina import layers


def _check(model, make, path, sizes=((1, 3), (7, 11))):
    model.export(path, format="onnx")
    onnx.checker.check_model(str(path))
    s = session(path)
    dims = s.get_inputs()[0].shape
    assert dims[0] == "batch" and isinstance(dims[1], str), dims
    for batch, steps in sizes:
        x = make(batch, steps)
        got = s.run(None, {s.get_inputs()[0].name: x})[0]
        want = model.predict(x, verbose=0)
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def _floats(batch, steps):
    return np.random.default_rng(steps).normal(size=(batch, steps, 8)).astype("float32")


def test_conv1d_and_global_pooling_over_any_length(tmp_path):
    x = layers.Input((None, 8))
    y = layers.Conv1D(4, 3, padding="same", activation="relu")(x)
    y = layers.Dense(2)(layers.GlobalMaxPooling1D()(y))
    _check(lamina.Model(x, y), _floats, tmp_path / "c.onnx")


def test_embedding_mask_zero_into_lstm_over_any_length(tmp_path):
    x = layers.Input((None,), dtype="int32")
    y = layers.LSTM(5)(layers.Embedding(20, 6, mask_zero=True)(x))
    model = lamina.Model(x, layers.Dense(2)(y))

    def tokens(batch, steps):
        a = np.random.default_rng(batch).integers(1, 20, (batch, steps)).astype("int32")
        for i in range(batch):
            a[i, 1 + i % steps:] = 0                      # right-padded
        return a
    _check(model, tokens, tmp_path / "e.onnx")


def test_self_attention_block_over_any_length(tmp_path):
    x = layers.Input((None, 8))
    y = layers.MultiHeadAttention(2, 4)(x, x)
    y = layers.GlobalAveragePooling1D()(layers.LayerNormalization()(layers.Add()([x, y])))
    _check(lamina.Model(x, y), _floats, tmp_path / "a.onnx")


@pytest.mark.slow
def test_an_application_model_exports(tmp_path):
    model = lamina.applications.MobileNetV2(weights=None, alpha=0.35, input_shape=(96, 96, 3),
                                            classes=10, classifier_activation=None)
    path = tmp_path / "mobilenet.onnx"
    model.export(path, format="onnx")
    x = np.random.default_rng(0).uniform(0, 255, (3, 96, 96, 3)).astype("float32")
    s = session(path)
    got = s.run(None, {s.get_inputs()[0].name: x})[0]
    np.testing.assert_allclose(got, model.predict(x, verbose=0), rtol=1e-4, atol=1e-4)
