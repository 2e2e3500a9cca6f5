import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case
from tests.layers.recurrent.helpers import fresh, random_weights, run, simple_rnn_step

CASES = [
    LayerCase(layers.SimpleRNN, dict(units=4), (2, 5, 3), (2, 4), trainable_weights=3,
              weight_shapes={"kernel": (3, 4), "recurrent_kernel": (4, 4), "bias": (4,)},
              params=4 * (3 + 4 + 1)),
    LayerCase(layers.SimpleRNN, dict(units=3, return_sequences=True, go_backwards=True,
                                     use_bias=False, activation="relu"),
              (2, 4, 5), (2, 4, 3), trainable_weights=2, params=3 * (5 + 3)),
    LayerCase(layers.SimpleRNN, dict(units=2, return_state=True, dropout=0.2,
                                     recurrent_dropout=0.3, seed=1),
              (3, 4, 2), [(3, 2), (3, 2)], params=2 * (2 + 2 + 1)),
    LayerCase(layers.SimpleRNNCell, dict(units=3), [(2, 4), (2, 3)], [(2, 3), (2, 3)],
              trainable_weights=3,
              weight_shapes={"kernel": (4, 3), "recurrent_kernel": (3, 3), "bias": (3,)},
              params=3 * (4 + 3 + 1)),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_simple_rnn_harness(case, backend):
    run_layer_case(fresh(case))


def _layer_with_weights(rng, **kwargs):
    layer = layers.SimpleRNN(dtype="float64", **kwargs)
    layer.build((None, 6, 3))
    weights = random_weights(layer, rng)
    layer.set_weights(weights)
    return layer, weights


def test_simple_rnn_matches_numpy(backend):
    rng = np.random.default_rng(0)
    layer, weights = _layer_with_weights(rng, units=4, return_sequences=True,
                                         return_state=True)
    x = rng.standard_normal((2, 6, 3))
    sequence, state = layer(x)
    _, want, (want_state,) = run(simple_rnn_step(weights), x, [np.zeros((2, 4))])
    np.testing.assert_allclose(sequence.numpy(), want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(state.numpy(), want_state, rtol=1e-10, atol=1e-12)


def test_simple_rnn_go_backwards_returns_reversed_sequence(backend):
    rng = np.random.default_rng(1)
    layer, weights = _layer_with_weights(rng, units=4, return_sequences=True,
                                         go_backwards=True)
    x = rng.standard_normal((2, 6, 3))
    _, want, _ = run(simple_rnn_step(weights), x, [np.zeros((2, 4))], go_backwards=True)
    np.testing.assert_allclose(layer(x).numpy(), want, rtol=1e-10, atol=1e-12)


def test_simple_rnn_dropout_mask_is_drawn_once_per_sequence(backend):
    # Linear cell with an identity kernel and no recurrence: output_t = x_t * mask.
    layer = layers.SimpleRNN(6, activation=None, use_bias=False, dropout=0.5, seed=3,
                             return_sequences=True, kernel_initializer="identity",
                             recurrent_initializer="zeros")
    x = np.ones((4, 5, 6), "float32")
    out = layer(x, training=True).numpy()
    assert set(np.unique(out)) <= {0.0, 2.0} and 0.0 in out and 2.0 in out
    for t in range(1, 5):
        np.testing.assert_array_equal(out[:, t], out[:, 0])
    np.testing.assert_array_equal(layer(x, training=False).numpy(), np.ones((4, 5, 6)))


def test_simple_rnn_rejects_bad_units():
    with pytest.raises(ValueError, match=r"simple_rnn\w*: argument 'units' must be a positive "
                                         r"int; received 0"):
        layers.SimpleRNN(0)
    with pytest.raises(ValueError, match=r"argument 'units' must be a positive int; "
                                         r"received 2.5"):
        layers.SimpleRNNCell(2.5)


def test_simple_rnn_rejects_bad_dropout():
    with pytest.raises(ValueError, match=r"simple_rnn\w*: argument 'dropout' must be a float "
                                         r"in \[0, 1\]; received 1.5"):
        layers.SimpleRNN(3, dropout=1.5)
    with pytest.raises(ValueError, match=r"argument 'recurrent_dropout' must be a float in "
                                         r"\[0, 1\]; received -0.1"):
        layers.SimpleRNN(3, recurrent_dropout=-0.1)


def test_simple_rnn_rejects_rank_2_input():
    with pytest.raises(ValueError, match=r"expects input of rank 3 \(batch, timesteps, "
                                         r"features\); received shape \(2, 3\)"):
        layers.SimpleRNN(3)(np.ones((2, 3), "float32"))


def test_simple_rnn_cell_needs_states():
    with pytest.raises(ValueError, match=r"a cell is called as cell\(inputs, states\) or "
                                         r"cell\(\[inputs, \*states\]\); received no states"):
        layers.SimpleRNNCell(3)(np.ones((2, 3), "float32"))
