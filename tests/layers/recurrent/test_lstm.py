import numpy as np
import pytest

import lamina
from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case
from tests.layers.recurrent.helpers import fresh, lstm_step, random_weights, run

CASES = [
    LayerCase(layers.LSTM, dict(units=4), (2, 5, 8), (2, 4), trainable_weights=3,
              weight_shapes={"kernel": (8, 16), "recurrent_kernel": (4, 16), "bias": (16,)},
              params=208),
    LayerCase(layers.LSTM, dict(units=3, return_sequences=True, return_state=True),
              (2, 5, 4), [(2, 5, 3), (2, 3), (2, 3)], params=4 * 3 * (4 + 3 + 1)),
    LayerCase(layers.LSTM, dict(units=2, use_bias=False, unit_forget_bias=False,
                                go_backwards=True, recurrent_activation="hard_sigmoid",
                                kernel_regularizer="l2"),
              (3, 4, 3), (3, 2), trainable_weights=2, params=4 * 2 * (3 + 2)),
    LayerCase(layers.LSTM, dict(units=3, dropout=0.1, recurrent_dropout=0.2, seed=0,
                                use_cudnn=False), (2, 3, 4), (2, 3), params=4 * 3 * 8),
    LayerCase(layers.LSTMCell, dict(units=3), [(2, 4), (2, 3), (2, 3)],
              [(2, 3), (2, 3), (2, 3)], trainable_weights=3,
              weight_shapes={"kernel": (4, 12), "recurrent_kernel": (3, 12), "bias": (12,)},
              params=4 * 3 * (4 + 3 + 1)),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_lstm_harness(case, backend):
    run_layer_case(fresh(case))


def _lstm(rng, **kwargs):
    layer = layers.LSTM(dtype="float64", **kwargs)
    layer.build((None, 6, 3))
    weights = random_weights(layer, rng)
    layer.set_weights(weights)
    return layer, weights


def test_lstm_gate_order_matches_keras_equations(backend):
    rng = np.random.default_rng(0)
    layer, weights = _lstm(rng, units=4, return_sequences=True, return_state=True)
    x = rng.standard_normal((2, 6, 3))
    sequence, h, c = layer(x)
    _, want, (want_h, want_c) = run(lstm_step(weights), x, [np.zeros((2, 4))] * 2)
    np.testing.assert_allclose(sequence.numpy(), want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(h.numpy(), want_h, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(c.numpy(), want_c, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(h.numpy(), sequence.numpy()[:, -1])


def test_lstm_initial_state(backend):
    rng = np.random.default_rng(1)
    layer, weights = _lstm(rng, units=4)
    x = rng.standard_normal((2, 6, 3))
    h0, c0 = rng.standard_normal((2, 4)), rng.standard_normal((2, 4))
    want, _, _ = run(lstm_step(weights), x, [h0, c0])
    got = layer(x, initial_state=[lamina.ops.convert_to_tensor(h0), h0 * 0 + c0])
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-12)


def test_lstm_unit_forget_bias_starts_forget_gate_at_one():
    layer = layers.LSTM(3)
    layer.build((None, 2, 5))
    np.testing.assert_array_equal(layer.cell.bias.numpy(), [0] * 3 + [1] * 3 + [0] * 6)
    layer = layers.LSTM(3, unit_forget_bias=False, bias_initializer="ones")
    layer.build((None, 2, 5))
    np.testing.assert_array_equal(layer.cell.bias.numpy(), np.ones(12))


def test_lstm_reads_cell_arguments_and_round_trips_config():
    layer = layers.LSTM(5, dropout=0.25, recurrent_activation="relu", name="seq")
    assert (layer.units, layer.dropout, layer.cell.name) == (5, 0.25, "lstm_cell")
    assert layer.recurrent_activation is lamina.activations.get("relu")
    config = layer.get_config()
    assert config["units"] == 5 and config["use_cudnn"] == "auto" and "cell" not in config
    assert config["zero_output_for_mask"] is False and config["seed"] is None
    assert layers.LSTM.from_config(config).get_config() == config


def test_lstm_recurrent_dropout_only_in_training(backend):
    layer = layers.LSTM(4, dropout=0.5, recurrent_dropout=0.5, seed=2)
    x = np.random.default_rng(0).standard_normal((3, 5, 2)).astype("float32")
    inference = layer(x).numpy()
    np.testing.assert_array_equal(layer(x, training=False).numpy(), inference)
    assert not np.allclose(layer(x, training=True).numpy(), inference)


def test_lstm_rejects_bad_use_cudnn():
    with pytest.raises(ValueError, match=r"lstm\w*: argument 'use_cudnn' must be 'auto', True "
                                         r"or False; received 'yes'"):
        layers.LSTM(3, use_cudnn="yes")


def test_lstm_rejects_wrong_initial_state():
    layer = layers.LSTM(3, name="lstm_x")
    x = np.ones((2, 4, 5), "float32")
    with pytest.raises(ValueError, match=r"lstm_x: argument 'initial_state' must hold 2 "
                                         r"tensor\(s\), one per state of the cell \(sizes "
                                         r"\[3, 3\]\); received 1"):
        layer(x, initial_state=[np.zeros((2, 3), "float32")])
    with pytest.raises(ValueError, match=r"lstm_x: argument 'initial_state' must hold states "
                                         r"of shape \(batch, 3\); received shape \(2, 4\)"):
        layer(x, initial_state=[np.zeros((2, 4), "float32")] * 2)


def test_lstm_rejects_other_feature_size():
    layer = layers.LSTM(3, name="lstm_y")
    layer(np.ones((2, 4, 5), "float32"))
    with pytest.raises(ValueError, match=r"lstm_y expects input with last dimension 5"):
        layer(np.ones((2, 4, 6), "float32"))


def test_lstm_needs_a_known_feature_size():
    with pytest.raises(ValueError, match=r"lstm_cell: the last dimension of the input must be "
                                         r"known to build the cell; received shape "
                                         r"\(None, None\)"):
        layers.LSTM(3)(lamina.Input((5, None)))


def test_lstm_rejects_time_major_from_keras_2_configs():
    config = layers.LSTM(2).get_config()
    assert layers.LSTM.from_config({**config, "time_major": False, "implementation": 2})
    with pytest.raises(ValueError, match=r"lstm\w*: argument 'time_major' is not supported "
                                         r"\(inputs are \(batch, timesteps, features\)\); "
                                         r"received True"):
        layers.LSTM.from_config({**config, "time_major": True})
