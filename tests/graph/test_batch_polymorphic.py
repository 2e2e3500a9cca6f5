"""One graph serves every batch size: traced with the batch size unknown, run with a memory
plan per concrete size, equal to eager for every size and for ragged last batches."""
import numpy as np
import pytest

import lamina
from lamina import layers, ops


def _mlp():
    return lamina.Sequential([lamina.Input((6,)), layers.Dense(8, activation="relu"),
                              layers.Dropout(0.3, seed=1), layers.Dense(3, activation="softmax")])


def _functional():
    inputs = lamina.Input((6,))
    hidden = layers.Dense(8, activation="tanh")(inputs)
    wide = layers.Reshape((2, 4))(hidden)
    outputs = layers.Dense(3, activation="softmax")(layers.Flatten()(wide) + hidden[:, :8])
    return lamina.Model(inputs, outputs)


def _cnn():
    return lamina.Sequential([
        lamina.Input((6, 6, 1)), layers.Conv2D(4, 3, padding="same", use_bias=False),
        layers.BatchNormalization(), layers.Activation("relu"), layers.Dropout(0.2, seed=2),
        layers.MaxPooling2D(), layers.Flatten(), layers.Dense(3, activation="softmax")])


def _lstm():
    return lamina.Sequential([lamina.Input((6,)), layers.Reshape((3, 2)), layers.LSTM(4),
                              layers.Dense(3, activation="softmax")])


def _activity():
    # the activity loss is divided by the batch size, counted while the graph runs
    return lamina.Sequential([lamina.Input((6,)),
                              layers.Dense(8, activation="relu", activity_regularizer="l2"),
                              layers.Dense(3, activation="softmax")])


MODELS = {"mlp": _mlp, "functional": _functional, "cnn": _cnn, "lstm": _lstm,
          "activity": _activity}


def _data(name, rows, seed=0):
    rng = np.random.default_rng(seed)
    shape = (rows, 6, 6, 1) if name == "cnn" else (rows, 6)
    return rng.standard_normal(shape).astype("float32"), rng.integers(0, 3, rows)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_predict_on_batch_sizes_1_to_64_equals_eager_from_one_trace(name):
    lamina.utils.set_random_seed(3)
    model = MODELS[name]()
    for rows in range(1, 65):
        x, _ = _data(name, rows, seed=rows)
        np.testing.assert_allclose(model.predict_on_batch(x),
                                   model(x, training=False).numpy(), rtol=1e-5, atol=1e-6)
    function = model.predict_function.function
    assert function.trace_count == 1
    (entry,) = function._plans.values()
    assert entry.graph.inputs[0].shape[0] is None
    assert len(entry.plans) == 64                   # one memory plan per batch size


@pytest.mark.parametrize("name", sorted(MODELS))
def test_fit_with_ragged_batches_and_sample_weights_equals_eager_and_traces_once(name):
    x, y = _data(name, 45)                          # batches 16, 16, 13; validation 9
    weights = np.random.default_rng(1).uniform(0.5, 2.0, 45).astype("float32")
    results = {}
    for eager in (True, False):
        lamina.utils.set_random_seed(7)
        model = MODELS[name]()
        model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                      metrics=["accuracy"], run_eagerly=eager)
        history = model.fit(x[:36], y[:36], sample_weight=weights[:36], batch_size=16,
                            epochs=3, verbose=0, validation_data=(x[36:], y[36:], weights[36:]),
                            shuffle=False)
        scores = model.evaluate(x, y, sample_weight=weights, batch_size=10, verbose=0)
        results[eager] = (history.history, model.get_weights(),
                          model.predict(x, batch_size=7, verbose=0), scores, model)
    (h_e, w_e, p_e, s_e, _), (h_g, w_g, p_g, s_g, graph_model) = results[True], results[False]
    for key in h_e:
        np.testing.assert_allclose(h_g[key], h_e[key], rtol=1e-4, atol=1e-5, err_msg=key)
    for a, b in zip(w_g, w_e):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(p_g, p_e, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(s_g, s_e, rtol=1e-4, atol=1e-5)
    for step in ("train_function", "test_function", "predict_function"):
        assert getattr(graph_model, step).function.trace_count == 1, step


def test_a_step_that_needs_a_concrete_batch_size_traces_per_size():
    class RowScale(lamina.Model):
        def call(self, x):
            return x / float(int(x.shape[0]))       # a Python number from the batch size
    model = RowScale()
    for rows in (2, 5, 2):
        x = np.ones((rows, 3), "float32")
        np.testing.assert_allclose(model.predict_on_batch(x), x / rows, rtol=1e-6)
    function = model.predict_function.function
    assert function.trace_count == 3                # relaxed (failed), then one per size
    assert isinstance(function.polymorphic_error, TypeError)


def test_a_batch_size_baked_in_while_tracing_is_caught_by_the_shape_walk():
    def f(x):
        # 4 rows when the size is unknown: the relaxed graph only fits batches of 4
        rows = x.shape[0] if x.shape[0] is not None else 4
        return x + ops.ones((rows, 3))
    compiled = lamina.jit(f, batch_polymorphic=True)
    np.testing.assert_allclose(compiled(np.ones((4, 3), "float32")).numpy(), 2.0)
    np.testing.assert_allclose(compiled(np.ones((5, 3), "float32")).numpy(), 2.0)
    np.testing.assert_allclose(compiled(np.ones((6, 3), "float32")).numpy(), 2.0)
    assert "cannot broadcast" in str(compiled.polymorphic_error)
    assert compiled.trace_count == 3                # relaxed (fits 4), then sizes 5 and 6


def test_jit_batch_polymorphic_option_and_default():
    w = lamina.Variable(np.arange(6, dtype="float32").reshape(3, 2), name="w_poly")

    def f(x, y):
        return ops.mean(ops.square(ops.matmul(x, w) - y))
    relaxed, fixed = lamina.jit(f, batch_polymorphic=True), lamina.jit(f)
    for rows in (1, 4, 9, 4):
        x = np.random.rand(rows, 3).astype("float32")
        y = np.random.rand(rows, 2).astype("float32")
        expected = f(ops.convert_to_tensor(x), ops.convert_to_tensor(y)).numpy()
        np.testing.assert_allclose(relaxed(x, y).numpy(), expected, rtol=1e-6)
        np.testing.assert_allclose(fixed(x, y).numpy(), expected, rtol=1e-6)
    assert relaxed.trace_count == 1
    assert fixed.trace_count == 3
    # inputs that do not share a leading size keep concrete shapes
    g = lamina.jit(lambda a, b: ops.sum(a) + ops.sum(b), batch_polymorphic=True)
    g(np.ones((2, 3), "float32"), np.ones((5,), "float32"))
    assert g.trace(np.ones((2, 3), "float32"), np.ones((5,), "float32")).inputs[0].shape == (2, 3)


def test_time_distributed_runs_every_batch_size_and_refuses_unknown_steps_in_a_graph():
    model = lamina.Sequential([lamina.Input((4, 3)), layers.TimeDistributed(layers.Dense(2))])
    for rows in (1, 5, 2):
        x = np.random.default_rng(rows).standard_normal((rows, 4, 3)).astype("float32")
        np.testing.assert_allclose(model.predict_on_batch(x), model(x).numpy(), rtol=1e-5,
                                   atol=1e-6)
    assert model.predict_function.function.trace_count == 1
    from lamina.errors import ShapeError
    from lamina.graph import trace as graph_trace
    from lamina.core.symbolic import SymbolicTensor
    layer = model.layers[0]
    with graph_trace.tracing_into(graph_trace.Trace()):
        with pytest.raises(ShapeError, match=r"time_distributed.*a compiled graph needs the sizes after "
                                 r"the batch axis; received shape \(None, None, 3\)"):
            layer(SymbolicTensor((None, None, 3), "float32"))


def test_mean_gradient_with_an_unknown_batch_rounds_as_eager():
    """A Dense bias before BatchNormalization gets a gradient that is pure rounding noise,
    which Adam turns into full-size steps: the polymorphic graph's mean gradient must round
    exactly as eager's (1/count as a float64 rounded once), or the bias drifts (fuzzer)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((20, 3)).astype("float32")
    y = rng.integers(0, 3, 20)
    weights = []
    for eager in (True, False):
        lamina.utils.set_random_seed(1)
        model = lamina.Sequential([lamina.Input((3,)), layers.Dense(4),
                                   layers.BatchNormalization(), layers.Dense(3)])
        model.compile(optimizer=lamina.optimizers.Adam(0.01), run_eagerly=eager,
                      loss=lamina.losses.SparseCategoricalCrossentropy(from_logits=True))
        for rows in (7, 12, 7, 5):
            model.train_on_batch(x[:rows], y[:rows])
        weights.append(model.get_weights())
    for a, b in zip(*weights):
        np.testing.assert_array_equal(a, b)
