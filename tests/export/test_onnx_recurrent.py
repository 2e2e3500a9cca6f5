"""Recurrent layers export as ONNX LSTM / GRU / RNN ops (never a Loop) and compute what
``predict`` computes, for every option: gate orders, reset_after, masks, go_backwards,
return_sequences, return_state, initial_state, Bidirectional; batch and sequence length
stay dynamic."""
import numpy as np
import pytest

from tests.export.onnx_helpers import onnx, run
import lamina
from lamina import layers
from lamina.export import OnnxExportError


def _randomize(model, seed=0):
    rng = np.random.default_rng(seed)
    for w in model.weights:
        w.assign(rng.normal(scale=0.5, size=w.shape).astype("float32"))


def _check(model, tmp_path, batches=((1, 3), (7, 6)), features=5, padded=False, n_inputs=1):
    path = tmp_path / "rnn.onnx"
    model.export(path, format="onnx")
    onnx.checker.check_model(str(path))
    kinds = {n.op_type for n in onnx.load(str(path)).graph.node}
    assert not kinds & {"Loop", "Scan"}, kinds
    rng = np.random.default_rng(1)
    for batch, steps in batches:
        x = rng.normal(size=(batch, steps, features)).astype("float32")
        if padded:                              # right-padded rows, at least one step each
            for i in range(batch):
                x[i, 1 + (i % steps):] = 0.0
        inputs = [x] + [rng.normal(size=(batch, s)).astype("float32")
                        for s in getattr(model, "_state_sizes", [])]
        want = lamina.tree.flatten(model.predict(inputs if len(inputs) > 1 else x,
                                                 verbose=0))
        got = run(path, *inputs)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    return kinds


def _sequential(layer, features=5, masking=False):
    x = layers.Input((None, features))
    model = lamina.Model(x, layer(layers.Masking(0.0)(x) if masking else x))
    _randomize(model)
    return model


@pytest.mark.parametrize("layer, op", [
    (lambda: layers.LSTM(4), "LSTM"),
    (lambda: layers.LSTM(4, return_sequences=True, recurrent_activation="hard_sigmoid"),
     "LSTM"),
    (lambda: layers.LSTM(3, go_backwards=True, return_sequences=True, use_bias=False), "LSTM"),
    (lambda: layers.GRU(4, return_sequences=True), "GRU"),
    (lambda: layers.GRU(4, reset_after=False, go_backwards=True), "GRU"),
    (lambda: layers.SimpleRNN(4, activation="relu", return_sequences=True), "RNN"),
    (lambda: layers.SimpleRNN(3, go_backwards=True), "RNN"),
    (lambda: layers.RNN(layers.GRUCell(3), return_sequences=True), "GRU"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_recurrent_layer_is_one_onnx_op(layer, op, tmp_path):
    kinds = _check(_sequential(layer()), tmp_path)
    assert op in kinds


def test_gate_order_is_converted():
    """LSTM kernels go from Keras's i, f, c, o to ONNX's i, o, f, c (checked on the file)."""
    import tempfile
    model = _sequential(layers.LSTM(2))
    kernel = model.layers[-1].cell.kernel.numpy()
    with tempfile.TemporaryDirectory() as d:
        model.export(f"{d}/g.onnx", format="onnx")
        weights = {t.name: onnx.numpy_helper.to_array(t)
                   for t in onnx.load(f"{d}/g.onnx").graph.initializer}
    w = next(v for k, v in weights.items() if k.startswith("W"))
    assert w.shape == (1, 8, 5)
    i, f, c, o = np.split(kernel, 4, axis=1)
    np.testing.assert_array_equal(w[0], np.concatenate([i, o, f, c], axis=1).T)


@pytest.mark.parametrize("make", [
    lambda: layers.LSTM(4, return_sequences=True),
    lambda: layers.LSTM(4),
    lambda: layers.GRU(3, return_sequences=True, return_state=True),
    lambda: layers.SimpleRNN(3, return_sequences=True, go_backwards=True),
    lambda: layers.RNN(layers.LSTMCell(3), return_sequences=True, zero_output_for_mask=True),
])
def test_right_padded_masks_become_sequence_lens(make, tmp_path):
    _check(_sequential(make(), masking=True), tmp_path, padded=True)


def test_return_state_and_initial_state(tmp_path):
    x = layers.Input((None, 5), name="tokens")
    h0, c0 = layers.Input((4,), name="h0"), layers.Input((4,), name="c0")
    seq, h, c = layers.LSTM(4, return_sequences=True, return_state=True)(
        x, initial_state=[h0, c0])
    model = lamina.Model([x, h0, c0], [seq, h, c])
    _randomize(model)
    model._state_sizes = [4, 4]
    _check(model, tmp_path)


@pytest.mark.parametrize("merge_mode", ["concat", "sum", None])
def test_bidirectional(merge_mode, tmp_path):
    model = _sequential(layers.Bidirectional(layers.GRU(3, return_sequences=True),
                                             merge_mode=merge_mode))
    _check(model, tmp_path)


def test_bidirectional_lstm_with_mask_and_states(tmp_path):
    model = lamina.Sequential([
        layers.Input((None, 5)), layers.Masking(0.0),
        layers.Bidirectional(layers.LSTM(3, return_sequences=True)),
        layers.Bidirectional(layers.LSTM(2)), layers.Dense(2)])
    _randomize(model)
    _check(model, tmp_path, padded=True)


def test_an_activation_onnx_lacks_is_refused(tmp_path):
    model = _sequential(layers.SimpleRNN(3, activation="gelu"))
    with pytest.raises(OnnxExportError, match="uses activation 'gelu', which ONNX's RNN op "
                                              "does not have"):
        model.export(tmp_path / "g.onnx", format="onnx")


def test_bidirectional_return_state(tmp_path):
    x = layers.Input((None, 5))
    outputs = layers.Bidirectional(layers.LSTM(3, return_sequences=True, return_state=True))(x)
    model = lamina.Model(x, list(outputs))
    _randomize(model)
    kinds = _check(model, tmp_path)
    assert "LSTM" in kinds


def test_a_mask_given_as_a_model_input(tmp_path):
    x = layers.Input((None, 5), name="x")
    mask = layers.Input((None,), dtype="bool", name="mask")
    model = lamina.Model([x, mask], layers.GRU(3, return_sequences=True, go_backwards=True)(
        x, mask=mask))
    _randomize(model)
    path = tmp_path / "m.onnx"
    model.export(path, format="onnx")
    data = np.random.default_rng(5).normal(size=(3, 6, 5)).astype("float32")
    keep = np.array([[1] * 6, [1] * 4 + [0] * 2, [1] + [0] * 5], bool)
    got, = run(path, names={"x": data, "mask": keep})
    np.testing.assert_allclose(got, model.predict([data, keep], verbose=0), rtol=1e-5,
                               atol=1e-5)


# ------------------------------------------------------------------ cells ONNX has no op for
def _scanned(model, shape, tmp_path, mask_rows=False):
    _randomize(model, seed=3)
    path = tmp_path / "scan.onnx"
    model.export(path, format="onnx")
    onnx.checker.check_model(str(path))
    assert "Scan" in {n.op_type for n in onnx.load(str(path)).graph.node}
    for batch in (1, 5):
        x = np.random.default_rng(batch).normal(size=(batch, *shape)).astype("float32")
        if mask_rows:                         # any mask: Lamina's own masking runs in the body
            x[:, 1] = 0.0
            x[0, -1] = 0.0
        want = lamina.tree.flatten(model.predict(x, verbose=0))
        for g, w in zip(run(path, x), want):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def test_conv_lstm_runs_as_an_onnx_scan(tmp_path):
    x = layers.Input((4, 6, 6, 2))
    y, h, c = layers.ConvLSTM2D(3, 3, padding="same", return_sequences=True,
                                return_state=True)(x)
    _scanned(lamina.Model(x, [y, h, c]), (4, 6, 6, 2), tmp_path)


def test_conv_lstm1d_go_backwards_as_a_scan(tmp_path):
    x = layers.Input((5, 7, 3))
    _scanned(lamina.Model(x, layers.ConvLSTM1D(2, 2, go_backwards=True)(x)), (5, 7, 3),
             tmp_path)


def test_stacked_cells_with_a_mask_as_a_scan(tmp_path):
    x = layers.Input((6, 4))
    y = layers.RNN([layers.LSTMCell(3), layers.GRUCell(2)], return_sequences=True)(
        layers.Masking(0.0)(x))
    _scanned(lamina.Model(x, y), (6, 4), tmp_path, mask_rows=True)


def test_a_scanned_rnn_needs_a_known_length(tmp_path):
    x = layers.Input((None, 4))
    model = lamina.Model(x, layers.RNN([layers.SimpleRNNCell(3), layers.GRUCell(2)])(x))
    with pytest.raises(OnnxExportError, match=r"layer 'rnn.*' \(RNN\) runs its cell as an ONNX "
                                              r"Scan, which needs a known number of timesteps"):
        model.export(tmp_path / "n.onnx", format="onnx")
    model.export(tmp_path / "k.onnx", format="onnx",
                 input_signature=[lamina.InputSpec(shape=(None, 5, 4), dtype="float32")])
    data = np.random.default_rng(0).normal(size=(3, 5, 4)).astype("float32")
    np.testing.assert_allclose(run(tmp_path / "k.onnx", data)[0], model.predict(data, verbose=0),
                               rtol=1e-5, atol=1e-5)
