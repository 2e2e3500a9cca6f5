"""Recurrent layers exported to ONNX compute what ``predict`` computes for every mask
pattern Keras accepts (issue 23, item 5): leading, trailing and interior padding, a row
with no kept step and a full row, through LSTM / GRU / SimpleRNN, both ways of
``return_sequences``, ``go_backwards``, ``zero_output_for_mask``, ``return_state`` with
initial states, and Bidirectional. Before the fix, leading padding was off by up to 0.9."""
import numpy as np
import pytest

from tests.export.onnx_helpers import onnx, run
import lamina
from lamina import layers

# one batch holding every pattern (0 is the padding token of Embedding(mask_zero=True))
TOKENS = np.array([[0, 0, 5, 6, 7, 1],        # leading padding (the issue's row)
                   [5, 6, 7, 0, 0, 0],        # trailing
                   [3, 0, 4, 0, 0, 2],        # interior
                   [0, 0, 0, 0, 0, 0],        # no kept step
                   [1, 2, 3, 4, 5, 6],        # no padding
                   [0, 8, 0, 9, 0, 0]], "int32")

LAYERS = {
    "gru": lambda: layers.GRU(3),
    "gru_seq_back": lambda: layers.GRU(3, return_sequences=True, go_backwards=True),
    "gru_reset_before": lambda: layers.GRU(3, reset_after=False, return_sequences=True),
    "lstm_seq": lambda: layers.LSTM(3, return_sequences=True),
    "lstm_back": lambda: layers.LSTM(3, go_backwards=True),
    "lstm_zero_out": lambda: layers.LSTM(3, return_sequences=True, zero_output_for_mask=True),
    "lstm_zero_last": lambda: layers.LSTM(3, zero_output_for_mask=True, go_backwards=True),
    "rnn": lambda: layers.SimpleRNN(3),
    "rnn_seq_back": lambda: layers.SimpleRNN(3, return_sequences=True, go_backwards=True),
    "lstm_states": lambda: layers.LSTM(3, return_sequences=True, return_state=True),
    "bi_gru_seq": lambda: layers.Bidirectional(layers.GRU(3, return_sequences=True)),
    "bi_lstm": lambda: layers.Bidirectional(layers.LSTM(2), merge_mode="sum"),
}


def _model(make):
    tokens = layers.Input((None,), dtype="int32")
    outputs = make()(layers.Embedding(10, 4, mask_zero=True)(tokens))
    model = lamina.Model(tokens, list(outputs) if isinstance(outputs, (list, tuple))
                         else outputs)
    rng = np.random.default_rng(0)
    for w in model.weights:
        w.assign(rng.normal(scale=0.7, size=w.shape).astype("float32"))
    return model


def _same(path, model, feeds, names=None):
    want = lamina.tree.flatten(model.predict(feeds if names is None else
                                             [names[k] for k in names], verbose=0))
    got = run(path, feeds) if names is None else run(path, names=names)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", sorted(LAYERS))
def test_every_mask_pattern_matches_predict(kind, tmp_path):
    model = _model(LAYERS[kind])
    path = tmp_path / "masked.onnx"
    model.export(path, format="onnx")
    onnx.checker.check_model(str(path))
    assert not {n.op_type for n in onnx.load(str(path)).graph.node} & {"Loop", "Scan"}
    _same(path, model, TOKENS)
    for row in range(len(TOKENS)):                # each pattern alone (batch 1)
        _same(path, model, TOKENS[row:row + 1])
    _same(path, model, TOKENS[:, :1])             # one step, kept or not


def test_initial_states_hold_through_leading_padding(tmp_path):
    """Outputs before the first kept step are the initial h; a row with no kept step ends
    in the initial states (as Keras's masked loop)."""
    tokens = layers.Input((None,), dtype="int32", name="tokens")
    h0, c0 = layers.Input((3,), name="h0"), layers.Input((3,), name="c0")
    seq, h, c = layers.LSTM(3, return_sequences=True, return_state=True)(
        layers.Embedding(10, 4, mask_zero=True)(tokens), initial_state=[h0, c0])
    model = lamina.Model([tokens, h0, c0], [seq, h, c])
    rng = np.random.default_rng(1)
    for w in model.weights:
        w.assign(rng.normal(scale=0.7, size=w.shape).astype("float32"))
    path = tmp_path / "states.onnx"
    model.export(path, format="onnx")
    feeds = {"tokens": TOKENS, "h0": rng.normal(size=(6, 3)).astype("float32"),
             "c0": rng.normal(size=(6, 3)).astype("float32")}
    _same(path, model, None, names=feeds)
    seq, h, c = model.predict(list(feeds.values()), verbose=0)
    np.testing.assert_allclose(seq[0, :2], np.repeat(feeds["h0"][:1], 2, 0), atol=1e-7)
    np.testing.assert_allclose(h[3], feeds["h0"][3], atol=1e-7)
    np.testing.assert_allclose(c[3], feeds["c0"][3], atol=1e-7)


def test_the_issue_case_keras_numbers(tmp_path):
    """Embedding(10, 4, mask_zero=True) + GRU(3) on [[0, 0, 5, 6, 7, 1]] with fixed
    weights: Keras 3.15.1 (JAX) gives these numbers; predict and the ONNX file both do."""
    model = _model(lambda: layers.GRU(3))
    for w, value in zip(model.weights, _fixed_weights()):
        w.assign(value)
    path = tmp_path / "gru.onnx"
    model.export(path, format="onnx")
    x = np.array([[0, 0, 5, 6, 7, 1]], "int32")
    keras_numbers = np.array([KERAS_GRU_OUTPUT], "float32")
    np.testing.assert_allclose(model.predict(x, verbose=0), keras_numbers, atol=1e-6)
    np.testing.assert_allclose(run(path, x)[0], keras_numbers, atol=1e-6)


def _fixed_weights():
    """embeddings (10, 4), kernel (4, 9), recurrent kernel (3, 9), bias (2, 9)."""
    return [np.linspace(-1, 1, n, dtype="float32").reshape(shape) * scale
            for n, shape, scale in ((40, (10, 4), 1.0), (36, (4, 9), 0.8),
                                    (27, (3, 9), 0.6), (18, (2, 9), 0.3))]


# Keras 3.15.1, JAX backend (the same as for the unpadded [[5, 6, 7, 1]])
KERAS_GRU_OUTPUT = [0.16516299545764923, 0.20673909783363342, 0.23422379791736603]
