"""Loops are ops: recurrent layers trace to one scan node (and one scan_grad) whose numbers
are eager mode's, and a graph that does not grow with the sequence length."""
import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.random import SeedGenerator

L = layers


# The loop under test is the scan: LSTM and GRU run theirs with oneDNN's whole-sequence ops
# off (those are tested in tests/layers/recurrent/test_lstm_gru_onednn.py).
pytestmark = pytest.mark.usefixtures("numpy_kernels")


def _model(name, steps=7):
    inputs = lamina.Input((steps, 4))
    masked = L.Masking(0.0)(inputs)
    if name == "encoder_decoder":
        _, h, c = L.LSTM(5, return_state=True)(inputs)
        return lamina.Model(inputs, L.LSTM(5, return_sequences=True)(inputs,
                                                                    initial_state=[h, c]))
    return lamina.Model(inputs, {
        "simple_rnn": lambda: L.SimpleRNN(5)(inputs),
        "lstm_sequences_backwards": lambda: L.LSTM(5, return_sequences=True,
                                                   go_backwards=True)(inputs),
        "gru_sequences": lambda: L.GRU(5, return_sequences=True)(inputs),
        "gru_reset_before": lambda: L.GRU(5, reset_after=False)(inputs),
        "lstm_mask": lambda: L.LSTM(5, return_sequences=True)(masked),
        "gru_mask_backwards_zero_output": lambda: L.GRU(
            5, return_sequences=True, go_backwards=True, zero_output_for_mask=True)(masked),
        "simple_rnn_mask": lambda: L.SimpleRNN(5)(masked),
        "bidirectional_mask": lambda: L.Bidirectional(L.LSTM(4, return_sequences=True))(masked),
        "stacked_cells": lambda: L.RNN([L.LSTMCell(3), L.GRUCell(4)],
                                       return_sequences=True)(inputs),
        "lstm_dropout": lambda: L.LSTM(5, dropout=0.3, recurrent_dropout=0.2, seed=1)(inputs),
        "gru_dropout_sequences": lambda: L.GRU(5, dropout=0.3, recurrent_dropout=0.2, seed=2,
                                               return_sequences=True)(inputs),
        "stacked_layers_mask_backwards": lambda: L.LSTM(3)(L.GRU(
            4, return_sequences=True, go_backwards=True)(masked)),
    }[name]())


LOOPS = {"bidirectional_mask": 2, "encoder_decoder": 2, "stacked_layers_mask_backwards": 2}


def _data(steps=7, batch=3):
    x = np.random.default_rng(0).standard_normal((batch, steps, 4)).astype("float32")
    x[0, 2:4] = 0.0                    # masked steps, for the models with Masking
    x[1, 5:] = 0.0
    if batch > 2:
        x[2, :2] = 0.0
    return ops.convert_to_tensor(x)


def _step_function(model, cotangent):
    def step(x):
        with lamina.GradientTape() as tape:
            out = model(x, training=True)
            loss = ops.sum(ops.multiply(out, cotangent))
        return out, tape.gradient(loss, model.trainable_weights)
    return step


def _twin_models(name, steps=7):
    """Two identical models (same weights, same random streams): eager and graph."""
    models = []
    for _ in range(2):
        lamina.utils.set_random_seed(3)
        models.append(_model(name, steps))
    return models


def _node_names(graph):
    return [node.op.name for node in graph.nodes]


@pytest.mark.parametrize("name", ["simple_rnn", "lstm_sequences_backwards", "gru_sequences",
                                  "gru_reset_before", "lstm_mask",
                                  "gru_mask_backwards_zero_output", "simple_rnn_mask",
                                  "bidirectional_mask", "stacked_cells", "lstm_dropout",
                                  "gru_dropout_sequences", "encoder_decoder",
                                  "stacked_layers_mask_backwards"])
def test_outputs_and_gradients_match_eager(name):
    eager_model, graph_model = _twin_models(name)
    x = _data()
    rng = np.random.default_rng(1)
    shape = eager_model.compute_output_shape((3, 7, 4))
    cotangent = ops.convert_to_tensor(rng.standard_normal(shape).astype("float32"))
    out_e, grads_e = _step_function(eager_model, cotangent)(x)
    compiled = lamina.jit(_step_function(graph_model, cotangent))
    out_g, grads_g = compiled(x)
    np.testing.assert_allclose(out_g.numpy(), out_e.numpy(), rtol=1e-5, atol=1e-6)
    assert len(grads_g) == len(grads_e) == len(eager_model.trainable_weights)
    for w, a, b in zip(eager_model.trainable_weights, grads_g, grads_e):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-6, err_msg=w.path)
    names = _node_names(compiled.trace(x))
    loops = LOOPS.get(name, 1)
    assert names.count("step_loop") == loops and names.count("step_loop_grad") == loops


@pytest.mark.parametrize("name", ["simple_rnn", "lstm_mask", "gru_sequences",
                                  "bidirectional_mask", "lstm_dropout"])
def test_three_training_steps_match_eager(name):
    x = _data()
    y = np.random.default_rng(2).standard_normal((3, 2)).astype("float32")
    results = {}
    for eager in (True, False):
        lamina.utils.set_random_seed(5)
        model = lamina.Sequential([_model(name), L.Flatten(), L.Dense(2)])
        model.compile(optimizer="adam", loss="mse", run_eagerly=eager)
        losses = [model.train_on_batch(x, y) for _ in range(3)]
        results[eager] = losses, model.get_weights()
    (losses_e, weights_e), (losses_g, weights_g) = results[True], results[False]
    np.testing.assert_allclose(losses_g, losses_e, rtol=1e-5, atol=1e-6)
    for a, b in zip(weights_g, weights_e):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
    (graph, _), = model.train_function.function._plans.values()
    assert "step_loop_grad" in _node_names(graph)


def _train_graph(steps, **lstm_arguments):
    lamina.utils.set_random_seed(0)
    model = lamina.Sequential([lamina.Input((steps, 8)), L.LSTM(16, **lstm_arguments),
                               L.Dense(4)])
    model.compile(optimizer="adam", loss="mse")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, steps, 8)).astype("float32")
    y = rng.standard_normal(model.compute_output_shape(x.shape)).astype("float32")
    model.train_on_batch(x, y)          # builds the variables (eagerly)
    model.train_on_batch(x, y)          # traces the graph
    (graph, _), = model.train_function.function._plans.values()
    return model, graph


@pytest.mark.parametrize("arguments", [{}, {"dropout": 0.2, "recurrent_dropout": 0.2},
                                       {"go_backwards": True, "return_sequences": True}],
                         ids=["plain", "dropout", "backwards_sequences"])
def test_graph_size_does_not_grow_with_sequence_length(arguments):
    _, short = _train_graph(10, **arguments)
    _, long = _train_graph(100, **arguments)
    assert len(long.nodes) == len(short.nodes)
    assert long.history[0] == short.history[0]       # the traced graph, before any pass
    assert _node_names(long).count("step_loop") == 1
    assert _node_names(long).count("step_loop_grad") == 1


def test_the_cells_weights_are_inputs_of_the_scan_node_and_get_updated():
    model, graph = _train_graph(6)
    scan_node, = [n for n in graph.nodes if n.op.name == "step_loop"]
    placeholders = {id(p): v for v, p in graph.variables}
    read = {placeholders[id(x)].path for x in scan_node.inputs if id(x) in placeholders}
    cell = model.layers[0].cell
    assert {cell.kernel.path, cell.recurrent_kernel.path, cell.bias.path} <= read
    updated = {v.path for v, _ in graph.updates}
    assert {cell.kernel.path, cell.recurrent_kernel.path, cell.bias.path} <= updated


def test_training_keeps_the_loop_values_for_the_gradient_and_inference_does_not():
    model, graph = _train_graph(6)
    scan_node, = [n for n in graph.nodes if n.op.name == "step_loop"]
    assert scan_node.attrs.get("save") and len(scan_node.outputs) > 3
    grad_node, = [n for n in graph.nodes if n.op.name == "step_loop_grad"]
    assert grad_node.attrs["saved"]
    x = np.zeros((8, 6, 8), "float32")
    model.predict_on_batch(x)
    (predict_graph, _), = model.predict_function.function._plans.values()
    names = _node_names(predict_graph)
    assert names.count("step_loop") == 1 and "step_loop_grad" not in names
    inference_scan, = [n for n in predict_graph.nodes if n.op.name == "step_loop"]
    assert not inference_scan.attrs.get("save") and len(inference_scan.outputs) == 3


class NoisyCell(L.Layer):
    """A cell that draws new noise at every step: no loop body, so the loop is unrolled."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units, self.state_size = units, units
        self.seed_generator = SeedGenerator(11)

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units), name="kernel")

    def call(self, inputs, states):
        noise = lamina.random.normal((inputs.shape[0], self.units), seed=self.seed_generator)
        h = ops.tanh(ops.add(ops.add(ops.matmul(inputs, self.kernel), states[0]), noise))
        return h, [h]


def test_a_step_with_new_randomness_every_step_is_unrolled_and_matches_eager():
    models = []
    for _ in range(2):
        lamina.utils.set_random_seed(4)
        models.append(lamina.Sequential([lamina.Input(batch_shape=(3, 5, 4)),
                                        L.RNN(NoisyCell(3))]))
    x = _data(steps=5)
    cotangent = ops.ones((3, 3))
    out_e, grads_e = _step_function(models[0], cotangent)(x)
    compiled = lamina.jit(_step_function(models[1], cotangent))
    out_g, grads_g = compiled(x)
    np.testing.assert_allclose(out_g.numpy(), out_e.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(grads_g[0].numpy(), grads_e[0].numpy(), rtol=1e-4, atol=1e-6)
    assert "step_loop" not in _node_names(compiled.trace(x))


def test_the_loop_reads_a_weight_assigned_earlier_in_the_same_graph():
    lamina.utils.set_random_seed(0)
    layer = L.SimpleRNN(3)
    x = _data(steps=4)
    layer(x)

    def f(x):
        layer.cell.kernel.assign(layer.cell.kernel * 2.0)
        return layer(x)
    kernel = layer.cell.kernel.numpy().copy()
    compiled = lamina.jit(f)
    out_g = compiled(x)
    layer.cell.kernel.assign(kernel)
    np.testing.assert_allclose(out_g.numpy(), f(x).numpy(), rtol=1e-5, atol=1e-6)
    assert "step_loop" in _node_names(compiled.trace(x))


def test_eager_mode_keeps_the_python_loop():
    from lamina.autograd import eager
    seen = set()
    eager.op_observer = seen.add
    try:
        L.LSTM(3)(_data(steps=4))
    finally:
        eager.op_observer = None
    assert "step_loop" not in seen and "matmul" in seen


def test_a_stateful_rnn_carries_its_states_across_compiled_calls():
    x = _data(steps=3, batch=2)
    results = {}
    for eager in (True, False):
        lamina.utils.set_random_seed(0)
        model = lamina.Sequential([lamina.Input(batch_shape=(2, 3, 4)),
                                   L.LSTM(3, stateful=True)])
        model.compile(optimizer="sgd", loss="mse", run_eagerly=eager)
        results[eager] = [model.predict_on_batch(x) for _ in range(3)]
    for a, b in zip(results[False], results[True]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
