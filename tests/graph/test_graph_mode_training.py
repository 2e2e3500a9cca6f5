"""fit in graph mode (the default) gives eager mode's numbers (DESIGN.md's tolerances)."""
import numpy as np
import pytest

import lamina
from lamina import layers


def _models():
    return {
        "mlp": lambda: lamina.Sequential([lamina.Input((6,)), layers.Dense(8, activation="relu"),
                                          layers.Dense(3, activation="softmax")]),
        "bn_dropout": lambda: lamina.Sequential([
            # No bias before BatchNormalization: its true gradient is 0, and Adam turns the
            # rounding noise of a zero gradient into full-size steps of either sign.
            lamina.Input((6,)), layers.Dense(8, use_bias=False), layers.BatchNormalization(),
            layers.Activation("relu"), layers.Dropout(0.3, seed=1),
            layers.Dense(3, activation="softmax")]),
        "cnn": lambda: lamina.Sequential([
            lamina.Input((6, 6, 1)), layers.Reshape((6, 6, 1)),
            layers.Conv2D(4, 3, padding="same", activation="relu"), layers.MaxPooling2D(),
            layers.Flatten(), layers.Dense(3, activation="softmax")]),
        "lstm": lambda: lamina.Sequential([
            lamina.Input((6,)), layers.Reshape((3, 2)), layers.LSTM(4),
            layers.Dense(3, activation="softmax")]),
    }


def _data(name):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((40, 6)).astype("float32")
    if name == "cnn":
        x = rng.standard_normal((40, 6, 6, 1)).astype("float32")
    return x, rng.integers(0, 3, 40)


@pytest.mark.parametrize("name", sorted(_models()))
def test_graph_mode_matches_eager(name):
    x, y = _data(name)
    results = {}
    for eager in (True, False):
        lamina.utils.set_random_seed(7)
        model = _models()[name]()
        model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                      metrics=["accuracy"], run_eagerly=eager)
        history = model.fit(x, y, batch_size=8, epochs=3, verbose=0,
                            validation_split=0.25)
        results[eager] = (history.history, model.get_weights(),
                          model.predict(x, verbose=0), model.evaluate(x, y, verbose=0))
    (h_e, w_e, p_e, s_e), (h_g, w_g, p_g, s_g) = results[True], results[False]
    for key in h_e:
        np.testing.assert_allclose(h_g[key], h_e[key], rtol=1e-4, atol=1e-5, err_msg=key)
    for a, b in zip(w_g, w_e):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(p_g, p_e, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(s_g, s_e, rtol=1e-4, atol=1e-5)


def test_graph_mode_is_the_default_and_traces_once():
    x, y = _data("mlp")
    model = _models()["mlp"]()
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    model.fit(x, y, batch_size=8, epochs=2, verbose=0)
    function = model.train_function.function
    assert function.trace_count == 1
    (graph, _), = function._plans.values()
    assert graph.updates and graph.nodes


def test_a_step_that_cannot_be_traced_runs_eagerly_with_a_warning():
    class ValueDependent(lamina.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.dense = layers.Dense(3, activation="softmax")

        def call(self, x):
            if float(lamina.ops.sum(x).numpy()) > 0:    # needs the value: not traceable
                return self.dense(x)
            return self.dense(-x)
    x, y = _data("mlp")
    losses = {}
    for eager in (True, False):
        lamina.utils.set_random_seed(3)
        model = ValueDependent()
        model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy",
                      run_eagerly=eager)
        if eager:
            history = model.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
        else:
            with pytest.warns(UserWarning, match=r"could not be compiled into a graph.*"
                                                 r"runs eagerly instead"):
                history = model.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
        losses[eager] = history.history["loss"]
    np.testing.assert_allclose(losses[False], losses[True], rtol=1e-6)
