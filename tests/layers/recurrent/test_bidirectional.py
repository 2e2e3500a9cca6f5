import numpy as np
import pytest

import lamina
from lamina import layers, ops
from tests.layers.harness import LayerCase, case_id, run_layer_case
from tests.layers.recurrent.helpers import Make, fresh, random_weights, run, simple_rnn_step

CASES = [
    LayerCase(layers.Bidirectional, dict(layer=Make(layers.LSTM, 3, return_sequences=True)),
              (2, 5, 4), (2, 5, 6), trainable_weights=6,
              weight_shapes={"kernel": (4, 12), "recurrent_kernel": (3, 12), "bias": (12,)},
              params=2 * 4 * 3 * (4 + 3 + 1)),
    LayerCase(layers.Bidirectional, dict(layer=Make(layers.GRU, 3), merge_mode="sum"),
              (2, 5, 4), (2, 3), params=2 * 3 * 3 * (4 + 3 + 2)),
    LayerCase(layers.Bidirectional, dict(layer=Make(layers.SimpleRNN, 2, return_sequences=True),
                                         merge_mode=None),
              (2, 5, 4), [(2, 5, 2), (2, 5, 2)], params=2 * 2 * (4 + 2 + 1)),
    LayerCase(layers.Bidirectional, dict(layer=Make(layers.LSTM, 2, return_state=True),
                                         merge_mode="ave"),
              (2, 3, 4), [(2, 2)] * 5, params=2 * 4 * 2 * (4 + 2 + 1)),
    LayerCase(layers.Bidirectional,
              dict(layer=Make(layers.GRU, 2, return_sequences=True), merge_mode="mul",
                   backward_layer=Make(layers.GRU, 2, return_sequences=True,
                                       go_backwards=True, reset_after=False)),
              (2, 3, 4), (2, 3, 2), params=3 * 2 * (4 + 2 + 2) + 3 * 2 * (4 + 2 + 1)),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_bidirectional_harness(case, backend):
    run_layer_case(fresh(case))


MASK = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], bool)


def _references(weights, x, mask=None):
    """Forward sequence, and the backward one flipped back to forward time."""
    step_f, step_b = simple_rnn_step(weights[:3]), simple_rnn_step(weights[3:])
    zeros = [np.zeros((x.shape[0], 3))]
    _, forward, _ = run(step_f, x, zeros, mask, zero_output_for_mask=mask is not None)
    _, backward, _ = run(step_b, x, zeros, mask, go_backwards=True,
                         zero_output_for_mask=mask is not None)
    return forward, backward[:, ::-1]


@pytest.mark.parametrize("merge_mode", ["concat", "sum", "mul", "ave", None])
@pytest.mark.parametrize("masked", [False, True])
def test_merge_modes_match_numpy(merge_mode, masked, backend):
    rng = np.random.default_rng(0)
    layer = layers.Bidirectional(layers.SimpleRNN(3, return_sequences=True, dtype="float64"),
                                 merge_mode=merge_mode, dtype="float64")
    layer.build((None, 5, 2))
    weights = random_weights(layer, rng)
    layer.set_weights(weights)
    x = rng.standard_normal((2, 5, 2))
    mask = MASK if masked else None
    forward, backward = _references(weights, x, mask)
    want = {"concat": np.concatenate([forward, backward], -1), "sum": forward + backward,
            "mul": forward * backward, "ave": (forward + backward) / 2,
            None: [forward, backward]}[merge_mode]
    got = layer(x, mask=mask)
    for g, w in zip(lamina.tree.flatten(got), lamina.tree.flatten(want)):
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-10, atol=1e-12)
    if masked:                                  # masked steps are zeros in both directions
        assert np.all(lamina.tree.flatten(got)[0].numpy()[0, 3:] == 0)


def test_last_outputs_and_states(backend):
    rng = np.random.default_rng(1)
    layer = layers.Bidirectional(layers.SimpleRNN(3, return_state=True, dtype="float64"),
                                 dtype="float64")
    layer.build((None, 5, 2))
    weights = random_weights(layer, rng)
    layer.set_weights(weights)
    x = rng.standard_normal((2, 5, 2))
    output, forward_h, backward_h = layer(x)
    forward, backward = _references(weights, x)
    # The backward layer's last output is the one at t = 0.
    np.testing.assert_allclose(output.numpy(), np.concatenate([forward[:, -1], backward[:, 0]],
                                                              -1), rtol=1e-10)
    np.testing.assert_allclose(forward_h.numpy(), forward[:, -1], rtol=1e-10)
    np.testing.assert_allclose(backward_h.numpy(), backward[:, 0], rtol=1e-10)


def test_initial_state_is_split_between_directions(backend):
    layer = layers.Bidirectional(layers.LSTM(2, return_state=True))
    x = np.random.default_rng(2).standard_normal((2, 4, 3)).astype("float32")
    states = [np.full((2, 2), v, "float32") for v in (0.1, 0.2, 0.3, 0.4)]
    output, *final = layer(x, initial_state=states)
    forward = layer.forward_layer(x, initial_state=states[:2])
    backward = layer.backward_layer(x, initial_state=states[2:])
    np.testing.assert_allclose(output.numpy(), np.concatenate([forward[0].numpy(),
                                                               backward[0].numpy()], -1))
    assert len(final) == 4


def test_sublayer_names_and_weight_order():
    layer = layers.Bidirectional(layers.GRU(2, name="enc"), name="bi")
    layer(np.ones((1, 3, 4), "float32"))
    assert (layer.forward_layer.name, layer.backward_layer.name) == ("forward_enc",
                                                                      "backward_enc")
    assert layer.backward_layer.go_backwards and not layer.forward_layer.go_backwards
    assert [w.path for w in layer.weights] == [
        f"bi/{d}_enc/gru_cell/{n}" for d in ("forward", "backward")
        for n in ("kernel", "recurrent_kernel", "bias")]


def test_weights_argument_sets_both_directions():
    template = layers.Bidirectional(layers.SimpleRNN(2))
    template(np.ones((1, 3, 4), "float32"))
    weights = [np.array(w) for w in template.get_weights()]
    layer = layers.Bidirectional(layers.SimpleRNN(2), weights=weights)
    x = np.random.default_rng(3).standard_normal((2, 3, 4)).astype("float32")
    np.testing.assert_allclose(layer(x).numpy(), template(x).numpy(), rtol=1e-6)


def test_stateful_reset_and_error(backend):
    layer = layers.Bidirectional(layers.SimpleRNN(2, stateful=True))
    x = np.ones((2, 3, 4), "float32")
    first = layer(x).numpy()
    assert len(layer.states) == 2 and not np.allclose(layer(x).numpy(), first)
    layer.reset_states()
    np.testing.assert_allclose(layer(x).numpy(), first, rtol=1e-6)
    with pytest.raises(ValueError, match=r"bidirectional\w*.reset_state: the layer is not "
                                         r"stateful"):
        layers.Bidirectional(layers.SimpleRNN(2)).reset_states()


def test_output_mask():
    mask = ops.convert_to_tensor(MASK)
    seq = layers.Bidirectional(layers.LSTM(2, return_sequences=True))
    assert seq.compute_mask(None, mask) is mask
    assert layers.Bidirectional(layers.LSTM(2)).compute_mask(None, mask) is None
    both = layers.Bidirectional(layers.LSTM(2, return_sequences=True), merge_mode=None)
    assert both.compute_mask(None, mask) == [mask, mask]


def test_bidirectional_rejects_bad_arguments():
    with pytest.raises(ValueError, match=r"bidirectional\w*: argument 'layer' must be a Layer "
                                         r"instance \(an RNN such as LSTM\(8\)\); received 3"):
        layers.Bidirectional(3)
    with pytest.raises(ValueError, match=r"argument 'merge_mode' must be one of \['concat', "
                                         r"'sum', 'mul', 'ave', None\]; received 'max'"):
        layers.Bidirectional(layers.LSTM(2), merge_mode="max")
    with pytest.raises(ValueError, match=r"argument 'backward_layer' must be a Layer instance "
                                         r"or None; received 'gru'"):
        layers.Bidirectional(layers.LSTM(2), backward_layer="gru")
    with pytest.raises(ValueError, match=r"the forward and backward layers must differ in "
                                         r"'go_backwards'; received False for both"):
        layers.Bidirectional(layers.LSTM(2), backward_layer=layers.LSTM(2))
    with pytest.raises(ValueError, match=r"must have the same 'return_sequences'; received "
                                         r"False \(forward\) and True \(backward\)"):
        layers.Bidirectional(layers.LSTM(2), backward_layer=layers.LSTM(
            2, go_backwards=True, return_sequences=True))


def test_in_a_sequential_model(backend):
    model = lamina.Sequential([lamina.Input((10, 8)), layers.LSTM(16, return_sequences=True),
                               layers.Bidirectional(layers.GRU(8)), layers.Dense(1)])
    assert model.count_params() == 4 * 16 * (8 + 16 + 1) + 2 * 3 * 8 * (16 + 8 + 2) + 17
    x = np.random.default_rng(4).standard_normal((3, 10, 8)).astype("float32")
    clone = lamina.Sequential.from_config(model.get_config())
    clone.set_weights(model.get_weights())
    np.testing.assert_allclose(clone(x).numpy(), model(x).numpy(), rtol=1e-6)
