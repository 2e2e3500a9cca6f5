import numpy as np
import pytest

import lamina
from lamina import layers, ops
from tests.layers.harness import LayerCase, case_id, run_layer_case
from tests.layers.recurrent.helpers import (Make, fresh, gru_step, lstm_step, random_weights,
                                            run, simple_rnn_step)


class MinimalRNNCell(layers.Layer):
    """Keras's docstring example: no get_initial_state, no training argument."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units), name="kernel")
        self.recurrent_kernel = self.add_weight(shape=(self.units, self.units),
                                                name="recurrent_kernel")

    def call(self, inputs, states):
        output = ops.matmul(inputs, self.kernel) + ops.matmul(states[0], self.recurrent_kernel)
        return output, [output]


class MaskNonZero(layers.Layer):
    """A stand-in for Masking: passes inputs through with mask = any(x != 0, axis=-1)."""

    def call(self, inputs):
        return inputs

    def compute_mask(self, inputs, mask=None):
        return ops.any(ops.not_equal(inputs, 0), axis=-1)


CASES = [
    LayerCase(layers.RNN, dict(cell=Make(layers.LSTMCell, 3)), (2, 4, 5), (2, 3),
              weight_shapes={"kernel": (5, 12), "recurrent_kernel": (3, 12), "bias": (12,)},
              params=4 * 3 * (5 + 3 + 1)),
    LayerCase(layers.RNN, dict(cell=[Make(layers.SimpleRNNCell, 3), Make(layers.GRUCell, 2)],
                               return_sequences=True, return_state=True),
              (2, 4, 5), [(2, 4, 2), (2, 3), (2, 2)], trainable_weights=6,
              params=3 * (5 + 3 + 1) + 3 * 2 * (3 + 2 + 2), id="RNN(stacked cells)"),
    LayerCase(layers.RNN, dict(cell=Make(layers.GRUCell, 2), go_backwards=True,
                               zero_output_for_mask=True, unroll=True),
              (3, 3, 2), (3, 2), params=3 * 2 * (2 + 2 + 2)),
    LayerCase(layers.StackedRNNCells, dict(cells=[Make(layers.LSTMCell, 3),
                                                  Make(layers.SimpleRNNCell, 2)]),
              [(2, 4), (2, 3), (2, 3), (2, 2)], [(2, 2), (2, 3), (2, 3), (2, 2)],
              params=4 * 3 * (4 + 3 + 1) + 2 * (3 + 2 + 1)),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_rnn_harness(case, backend):
    run_layer_case(fresh(case))


def _built(layer, rng, input_shape=(None, 6, 3)):
    layer.build(input_shape)
    weights = random_weights(layer, rng)
    layer.set_weights(weights)
    return weights


MASK = np.array([[1, 1, 0, 1, 0, 0], [0, 1, 1, 1, 1, 0], [1, 1, 1, 1, 1, 1]], bool)


@pytest.mark.parametrize("go_backwards", [False, True])
@pytest.mark.parametrize("zero_output_for_mask", [False, True])
def test_masked_steps_carry_states_and_outputs(go_backwards, zero_output_for_mask, backend):
    rng = np.random.default_rng(0)
    cell = layers.LSTMCell(4, dtype="float64")
    layer = layers.RNN(cell, return_sequences=True, return_state=True,
                       go_backwards=go_backwards, zero_output_for_mask=zero_output_for_mask,
                       dtype="float64")
    weights = _built(layer, rng)
    x = rng.standard_normal((3, 6, 3))
    sequence, h, c = layer(x, mask=MASK)
    _, want, (want_h, want_c) = run(lstm_step(weights), x, [np.zeros((3, 4))] * 2, MASK,
                                    go_backwards, zero_output_for_mask)
    np.testing.assert_allclose(sequence.numpy(), want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(h.numpy(), want_h, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(c.numpy(), want_c, rtol=1e-10, atol=1e-12)
    last = layers.RNN(cell, go_backwards=go_backwards, zero_output_for_mask=zero_output_for_mask,
                      dtype="float64")(x, mask=MASK)
    np.testing.assert_allclose(last.numpy(), want[:, -1], rtol=1e-10, atol=1e-12)


def test_mask_arrives_through_keras_mask_in_a_functional_model(backend):
    rng = np.random.default_rng(1)
    inputs = lamina.Input((6, 3), dtype="float64")
    rnn = layers.GRU(4, return_sequences=True, dtype="float64")
    outputs = rnn(MaskNonZero(dtype="float64")(inputs))
    model = lamina.Model(inputs, outputs)
    weights = random_weights(rnn, rng)
    rnn.set_weights(weights)
    x = rng.standard_normal((3, 6, 3)) * MASK[..., None]
    got = model(x)
    _, want, _ = run(gru_step(weights), x, [np.zeros((3, 4))], MASK)
    # The model (a float32 layer) autocasts its float64 input on the way in.
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(got._keras_mask.numpy(), MASK)


def test_embedding_mask_zero_reaches_the_rnn(backend):
    ids = np.array([[3, 5, 0, 0], [2, 7, 9, 1]])
    inputs = lamina.Input((4,), dtype="int32")
    embedding, rnn = layers.Embedding(10, 3, mask_zero=True), layers.LSTM(2)
    model = lamina.Model(inputs, rnn(embedding(inputs)))
    want = rnn(embedding(ids), mask=ids != 0)
    np.testing.assert_allclose(model(ids).numpy(), want.numpy(), rtol=1e-6)
    unmasked = rnn(ops.convert_to_tensor(embedding(ids).numpy()))
    assert not np.allclose(unmasked.numpy(), want.numpy())


def test_compute_mask():
    mask = ops.convert_to_tensor(MASK)
    assert layers.LSTM(2, return_sequences=True).compute_mask(None, mask) is mask
    assert layers.LSTM(2).compute_mask(None, mask) is None
    assert layers.LSTM(2, return_state=True).compute_mask(None, mask) == [None, None, None]


def test_stacked_cells_match_numpy(backend):
    rng = np.random.default_rng(2)
    layer = layers.RNN([layers.SimpleRNNCell(3, dtype="float64"),
                        layers.LSTMCell(2, dtype="float64")], return_state=True,
                       dtype="float64")
    weights = _built(layer, rng)
    x = rng.standard_normal((2, 6, 3))
    output, simple_state, lstm_states = layer(x)
    first, second = simple_rnn_step(weights[:3]), lstm_step(weights[3:])

    def step(x_t, states):
        y, s1 = first(x_t, states[0])
        y, s2 = second(y, states[1])
        return y, [s1, s2]
    zeros = [[np.zeros((2, 3))], [np.zeros((2, 2))] * 2]
    want, _, want_states = run(step, x, zeros)
    np.testing.assert_allclose(output.numpy(), want, rtol=1e-10, atol=1e-12)
    (simple_state,) = simple_state          # the cell's initial state is a list, as Keras
    np.testing.assert_allclose(simple_state.numpy(), want_states[0][0], rtol=1e-10)
    np.testing.assert_allclose(lstm_states[1].numpy(), want_states[1][1], rtol=1e-10)


def test_custom_cell_and_config_round_trip(backend):
    layer = layers.RNN(MinimalRNNCell(3), return_sequences=True)
    out = layer(np.ones((2, 4, 5), "float32"))
    assert out.shape == (2, 4, 3)
    assert [w.path for w in layer.weights] == [f"{layer.name}/{layer.cell.name}/kernel",
                                               f"{layer.name}/{layer.cell.name}/recurrent_kernel"]
    config = layers.RNN(layers.LSTMCell(2)).get_config()
    assert config["cell"]["class_name"] == "LSTMCell"
    assert layers.RNN.from_config(config).get_config()["cell"] == config["cell"]


def test_unknown_number_of_timesteps(backend):
    inputs = lamina.Input((None, 3))
    rnn = layers.LSTM(4, return_sequences=True, return_state=True)
    outputs = rnn(inputs)
    assert [o.shape for o in outputs] == [(None, None, 4), (None, 4), (None, 4)]
    model = lamina.Model(inputs, outputs)
    for steps in (5, 7):
        x = np.random.default_rng(steps).standard_normal((2, steps, 3)).astype("float32")
        for got, want in zip(model(x), rnn(x)):
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    assert model(np.ones((2, 5, 3), "float32"))[0].shape == (2, 5, 4)


def test_stateful_keeps_states_between_calls(backend):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 6, 3)).astype("float32")
    full = layers.GRU(4, return_sequences=True)
    want = full(x).numpy()
    layer = layers.GRU(4, return_sequences=True, stateful=True)
    layer.build((2, 3, 3))
    layer.set_weights(full.get_weights())
    assert layer.weights == layer.trainable_weights and len(layer.weights) == 3
    np.testing.assert_allclose(layer(x[:, :3]).numpy(), want[:, :3], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(layer(x[:, 3:]).numpy(), want[:, 3:], rtol=1e-5, atol=1e-6)
    layer.reset_states()
    np.testing.assert_allclose(layer(x[:, :3]).numpy(), want[:, :3], rtol=1e-5, atol=1e-6)
    layer.reset_state(states=[np.ones((2, 4), "float32")])
    np.testing.assert_array_equal(layer.states[0].numpy(), np.ones((2, 4)))


def test_stateful_gradient_uses_the_states_read_by_the_call(backend):
    layer = layers.SimpleRNN(3, stateful=True)
    x = np.random.default_rng(4).standard_normal((2, 4, 2)).astype("float32")
    layer(x)
    before = np.array(layer.states[0].numpy())       # a copy: numpy() may view the buffer
    with lamina.GradientTape() as tape:
        loss = ops.sum(layer(x))
    grads = tape.gradient(loss, layer.trainable_weights)
    reference = layers.SimpleRNN(3)
    reference(x)
    reference.set_weights(layer.get_weights())
    with lamina.GradientTape() as tape:
        loss = ops.sum(reference(x, initial_state=before))
    for got, want in zip(grads, tape.gradient(loss, reference.trainable_weights)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


def test_stateful_needs_a_fixed_batch_size():
    with pytest.raises(ValueError, match=r"lstm_s: a stateful RNN needs a fixed batch size; "
                                         r".*received input shape \(None, 5, 3\)"):
        layers.LSTM(2, stateful=True, name="lstm_s")(lamina.Input((5, 3)))


def test_stateful_rejects_another_batch_size():
    layer = layers.LSTM(2, stateful=True, name="lstm_t")
    layer(np.ones((4, 5, 3), "float32"))
    with pytest.raises(ValueError, match=r"lstm_t: a stateful RNN keeps states for batches of "
                                         r"4; received input shape \(3, 5, 3\)"):
        layer(np.ones((3, 5, 3), "float32"))


def test_rnn_rejects_objects_that_are_not_cells():
    with pytest.raises(ValueError, match=r"rnn\w*: argument 'cell' must have a "
                                         r"call\(inputs, states\) method; received 3"):
        layers.RNN(3)
    with pytest.raises(ValueError, match=r"argument 'cell' must have a 'state_size' attribute "
                                         r".*received a cell with state_size=None"):
        layers.RNN(layers.Dense(3))
    with pytest.raises(ValueError, match=r"stacked_rnn_cells\w*: argument 'cells' must hold "
                                         r"RNN cells"):
        layers.StackedRNNCells([layers.LSTMCell(2), layers.Dense(2)])
    with pytest.raises(ValueError, match=r"argument 'cells' must be a non-empty list of RNN "
                                         r"cells; received \[\]"):
        layers.StackedRNNCells([])


def test_rnn_rejects_a_mask_of_another_shape():
    with pytest.raises(ValueError, match=r"rnn_m: argument 'mask' must have shape \(batch, "
                                         r"timesteps\) = \(2, 4\); received shape \(2, 5\)"):
        layers.RNN(layers.GRUCell(2), name="rnn_m")(np.ones((2, 4, 3), "float32"),
                                                    mask=np.ones((2, 5), bool))


def test_rnn_rejects_unroll_over_unknown_timesteps():
    with pytest.raises(ValueError, match=r"rnn_u: cannot unroll an RNN over an unknown number "
                                         r"of timesteps"):
        layers.RNN(layers.GRUCell(2), unroll=True, name="rnn_u")(lamina.Input((None, 3)))


def test_rnn_rejects_zero_timesteps():
    with pytest.raises(ValueError, match=r"the input must have at least one timestep; "
                                         r"received shape \(2, 0, 3\)"):
        layers.SimpleRNN(2)(np.ones((2, 0, 3), "float32"))


def test_reset_state_rejects_another_number_of_states():
    layer = layers.LSTM(2, stateful=True, name="lstm_r")
    layer(np.ones((2, 3, 4), "float32"))
    with pytest.raises(ValueError, match=r"lstm_r.reset_state: argument 'states' must hold 2 "
                                         r"arrays; received 1"):
        layer.reset_state(states=[np.zeros((2, 2), "float32")])
