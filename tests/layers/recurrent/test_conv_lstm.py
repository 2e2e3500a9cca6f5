import numpy as np
import pytest

import lamina
from lamina import layers, ops
from tests.layers.harness import LayerCase, case_id, run_layer_case
from tests.layers.keras11.reference import check_against_keras

CASES = [
    LayerCase(layers.ConvLSTM1D, dict(filters=2, kernel_size=2), (2, 3, 4, 2), (2, 3, 2),
              trainable_weights=3, params=72, rtol=1e-4, atol=1e-5,
              weight_shapes={"kernel": (2, 2, 8), "recurrent_kernel": (2, 2, 8),
                             "bias": (8,)}),
    LayerCase(layers.ConvLSTM2D, dict(filters=2, kernel_size=2, padding="same",
                                      return_sequences=True),
              (2, 3, 3, 3, 1), (2, 3, 3, 3, 2), trainable_weights=3, params=104,
              rtol=1e-4, atol=1e-5),
    LayerCase(layers.ConvLSTM3D, dict(filters=1, kernel_size=2), (1, 2, 3, 2, 2, 1),
              (1, 2, 1, 1, 1), trainable_weights=3, params=68, rtol=1e-4, atol=1e-5),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_conv_lstm_harness(case):
    run_layer_case(case)


@pytest.mark.parametrize("key, cls, kwargs", [
    ("conv_lstm1d", layers.ConvLSTM1D, dict(filters=2, kernel_size=3, padding="same",
                                            return_sequences=True)),
    ("conv_lstm2d", layers.ConvLSTM2D, dict(filters=3, kernel_size=(2, 3), strides=(1, 2))),
    ("conv_lstm2d_cf_backwards", layers.ConvLSTM2D, dict(
        filters=2, kernel_size=2, data_format="channels_first", go_backwards=True,
        return_sequences=True, unit_forget_bias=False)),
    ("conv_lstm3d", layers.ConvLSTM3D, dict(filters=2, kernel_size=2, padding="same")),
])
def test_conv_lstm_matches_keras(key, cls, kwargs):
    check_against_keras(key, cls(**kwargs), rtol=1e-4, atol=1e-5)


def test_unit_forget_bias_and_states():
    layer = layers.ConvLSTM2D(2, 3, padding="same", return_state=True)
    x = ops.convert_to_tensor(np.ones((2, 2, 4, 4, 1), "float32"))
    out, h, c = layer(x)
    assert out.shape == h.shape == c.shape == (2, 4, 4, 2)
    np.testing.assert_array_equal(layer.cell.bias.numpy(), [0, 0, 1, 1, 0, 0, 0, 0])
    np.testing.assert_allclose(out.numpy(), h.numpy())
    assert layer.compute_output_shape((2, 2, 4, 4, 1)) == ((2, 4, 4, 2),) * 3


def test_keras_config_keys_and_round_trip(tmp_path):
    layer = layers.ConvLSTM2D(2, 3, dropout=0.2, recurrent_dropout=0.1, seed=3)
    config = layer.get_config()
    assert "rank" not in config and "units" not in config and config["filters"] == 2
    assert layers.ConvLSTM2D.from_config(config).get_config() == config
    model = lamina.Sequential([layers.Input((2, 5, 5, 1)), layer])
    model.save(tmp_path / "m.keras")
    again = lamina.saving.load_model(tmp_path / "m.keras")
    x = np.random.default_rng(0).standard_normal((1, 2, 5, 5, 1)).astype("float32")
    np.testing.assert_allclose(again.predict(x, verbose=0), model.predict(x, verbose=0),
                               rtol=1e-6)


def test_dropout_trains_and_wrong_rank_is_refused():
    layer = layers.ConvLSTM1D(2, 2, dropout=0.5, recurrent_dropout=0.5, seed=1)
    x = ops.convert_to_tensor(np.ones((2, 3, 4, 1), "float32"))
    assert not np.allclose(layer(x, training=True).numpy(), layer(x).numpy())
    with pytest.raises(ValueError, match="conv_lstm2d.*rank 5"):
        layers.ConvLSTM2D(2, 2)(ops.convert_to_tensor(np.ones((2, 3, 4, 1), "float32")))


def test_stateful_keeps_spatial_states_between_calls():
    layer = layers.ConvLSTM1D(2, 2, padding="same", stateful=True)
    x = ops.convert_to_tensor(np.ones((2, 3, 4, 1), "float32"))
    first = layer(x).numpy()
    assert [tuple(s.shape) for s in layer.states] == [(2, 4, 2), (2, 4, 2)]
    second = layer(x).numpy()
    assert not np.allclose(first, second)
    layer.reset_state()
    np.testing.assert_allclose(layer(x).numpy(), first, rtol=1e-6)
