import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case
from tests.layers.recurrent.helpers import fresh, gru_step, random_weights, run

CASES = [
    LayerCase(layers.GRU, dict(units=4), (2, 5, 8), (2, 4), trainable_weights=3,
              weight_shapes={"kernel": (8, 12), "recurrent_kernel": (4, 12), "bias": (2, 12)},
              params=3 * 4 * (8 + 4 + 2)),
    LayerCase(layers.GRU, dict(units=4, reset_after=False), (2, 5, 8), (2, 4),
              weight_shapes={"kernel": (8, 12), "recurrent_kernel": (4, 12), "bias": (12,)},
              params=3 * 4 * (8 + 4 + 1)),
    LayerCase(layers.GRU, dict(units=3, return_sequences=True, return_state=True,
                               go_backwards=True, use_bias=False),
              (2, 4, 2), [(2, 4, 3), (2, 3)], trainable_weights=2, params=3 * 3 * (2 + 3)),
    LayerCase(layers.GRU, dict(units=2, reset_after=False, dropout=0.3,
                               recurrent_dropout=0.3, seed=4), (3, 3, 2), (3, 2),
              params=3 * 2 * (2 + 2 + 1)),
    LayerCase(layers.GRUCell, dict(units=3), [(2, 4), (2, 3)], [(2, 3), (2, 3)],
              weight_shapes={"kernel": (4, 9), "recurrent_kernel": (3, 9), "bias": (2, 9)},
              params=3 * 3 * (4 + 3 + 2)),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_gru_harness(case, backend):
    run_layer_case(fresh(case))


@pytest.mark.parametrize("reset_after", [True, False])
def test_gru_matches_keras_equations(reset_after, backend):
    rng = np.random.default_rng(0)
    layer = layers.GRU(4, reset_after=reset_after, return_sequences=True, return_state=True,
                       dtype="float64")
    layer.build((None, 6, 3))
    weights = random_weights(layer, rng)
    layer.set_weights(weights)
    x = rng.standard_normal((2, 6, 3))
    h0 = rng.standard_normal((2, 4))
    sequence, state = layer(x, initial_state=h0)
    _, want, (want_state,) = run(gru_step(weights, reset_after), x, [h0])
    np.testing.assert_allclose(sequence.numpy(), want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(state.numpy(), want_state, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("reset_after", [True, False])
def test_gru_recurrent_dropout_runs_per_gate_masks(reset_after, backend):
    layer = layers.GRU(3, dropout=0.4, recurrent_dropout=0.4, reset_after=reset_after, seed=5)
    x = np.random.default_rng(0).standard_normal((2, 4, 3)).astype("float32")
    inference = layer(x).numpy()
    trained = layer(x, training=True).numpy()
    assert trained.shape == (2, 3) and not np.allclose(trained, inference)
    assert layer.cell._dropout_mask is None           # masks live for one sequence only


def test_gru_config_has_reset_after():
    config = layers.GRU(3, reset_after=False).get_config()
    assert config["reset_after"] is False and config["units"] == 3
    assert layers.GRU.from_config(config).cell.reset_after is False


def test_gru_rejects_bad_units():
    with pytest.raises(ValueError, match=r"gru\w*: argument 'units' must be a positive int; "
                                         r"received -1"):
        layers.GRU(-1)


def test_gru_rejects_bad_use_cudnn():
    with pytest.raises(ValueError, match=r"argument 'use_cudnn' must be 'auto', True or "
                                         r"False; received None"):
        layers.GRU(2, use_cudnn=None)
