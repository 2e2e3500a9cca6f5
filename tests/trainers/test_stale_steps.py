"""A change of a model's structure after its steps were compiled (graph mode, the default)
retraces them: predict / fit never run the model as it was."""
import numpy as np
import pytest

import lamina
from lamina import layers
from tests.trainers.common import data, fresh_session


setup_function = fresh_session


def two_layer_model(run_eagerly=False, weights=None):
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(5, activation="tanh"),
                               layers.Dense(3)])
    if weights is not None:
        model.set_weights(weights)
    model.compile(lamina.optimizers.SGD(0.1), "mse", run_eagerly=run_eagerly)
    return model


def test_add_after_predict_changes_predict_and_predict_on_batch():
    x, _ = data()
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(3)])
    model.compile("sgd", "mse")
    assert model.predict(x, verbose=0).shape == (16, 3)
    assert model.predict_on_batch(x).shape == (16, 3)
    model.add(layers.Dense(7))
    expected = model(x).numpy()
    assert expected.shape == (16, 7)
    np.testing.assert_allclose(model.predict(x, verbose=0), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(model.predict_on_batch(x), expected, rtol=1e-5, atol=1e-6)


def test_pop_after_predict_changes_predict():
    x, _ = data()
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(3), layers.Dense(7)])
    model.compile("sgd", "mse")
    assert model.predict(x, verbose=0).shape == (16, 7)
    model.pop()
    expected = model(x).numpy()
    assert expected.shape == (16, 3)
    np.testing.assert_allclose(model.predict(x, verbose=0), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(model.predict_on_batch(x), expected, rtol=1e-5, atol=1e-6)


def test_add_after_fit_changes_every_step():
    x, y = data()
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(5)])
    model.compile(lamina.optimizers.SGD(0.1), "mse")
    y5 = np.repeat(x[:, :1], 5, axis=1)
    model.fit(x, y5, batch_size=4, epochs=2, validation_data=(x, y5), verbose=0)
    model.predict(x, verbose=0)
    model.add(layers.Dense(3))
    expected = model(x).numpy()
    np.testing.assert_allclose(model.predict(x, verbose=0), expected, rtol=1e-5, atol=1e-6)
    mse = float(np.mean((expected - y) ** 2))
    assert model.evaluate(x, y, verbose=0) == pytest.approx(mse, rel=1e-5)
    # As in Keras, the optimizer was built for the old variables: recompile to train.
    model.compile(lamina.optimizers.SGD(0.1), "mse")
    before = model.layers[1].get_weights()[0].copy()
    model.fit(x, y, batch_size=4, epochs=2, verbose=0)
    assert not np.allclose(model.layers[1].get_weights()[0], before)


def test_freezing_a_layer_after_fit_stops_its_updates_as_in_eager_mode():
    x, y = data()
    graph = two_layer_model()
    eager = two_layer_model(run_eagerly=True, weights=graph.get_weights())
    for model in (graph, eager):
        model.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)
        model.layers[0].trainable = False
    frozen = graph.layers[0].get_weights()
    head = graph.layers[1].get_weights()[0].copy()
    for model in (graph, eager):
        model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    for before, after in zip(frozen, graph.layers[0].get_weights()):
        np.testing.assert_array_equal(after, before)
    assert not np.allclose(graph.layers[1].get_weights()[0], head)
    for g, e in zip(graph.get_weights(), eager.get_weights()):
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5)
    assert graph.train_function.function.trace_count == 1     # once after the change


def test_freezing_a_layer_of_a_nested_model_after_fit():
    x, y = data()
    inner = lamina.Sequential([lamina.Input((4,)), layers.Dense(5), layers.Dense(5)])
    model = lamina.Sequential([lamina.Input((4,)), inner, layers.Dense(3)])
    model.compile(lamina.optimizers.SGD(0.1), "mse")
    model.fit(x, y, batch_size=4, epochs=1, verbose=0)
    inner.layers[0].trainable = False
    frozen = inner.layers[0].get_weights()[0].copy()
    still_trained = inner.layers[1].get_weights()[0].copy()
    model.fit(x, y, batch_size=4, epochs=2, verbose=0)
    np.testing.assert_array_equal(inner.layers[0].get_weights()[0], frozen)
    assert not np.allclose(inner.layers[1].get_weights()[0], still_trained)


def test_freezing_one_variable_after_fit():
    """``variable.trainable = False`` (not the layer's flag) also retraces the step."""
    x, y = data()
    model = two_layer_model()
    model.fit(x, y, batch_size=4, epochs=1, verbose=0)
    kernel = model.layers[0].kernel
    kernel.trainable = False
    frozen = kernel.numpy().copy()
    bias = model.layers[0].bias.numpy().copy()
    model.fit(x, y, batch_size=4, epochs=1, verbose=0)
    np.testing.assert_array_equal(kernel.numpy(), frozen)
    assert not np.allclose(model.layers[0].bias.numpy(), bias)


def test_recompiling_with_another_loss_inside_fit_uses_the_new_loss():
    x, y = data()
    model = two_layer_model()

    class Recompile(lamina.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            if epoch == 0:
                self.model.compile(lamina.optimizers.SGD(0.0), "mae")
    history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0,
                        callbacks=[Recompile()])
    mae = float(np.mean(np.abs(model.predict(x, verbose=0) - y)))
    assert history.history["loss"][1] == pytest.approx(mae, rel=1e-5)
    assert model.evaluate(x, y, verbose=0) == pytest.approx(mae, rel=1e-5)


def test_replacing_the_optimizer_after_fit():
    x, y = data()
    model = two_layer_model()
    model.fit(x, y, batch_size=4, epochs=1, verbose=0)
    model.optimizer = lamina.optimizers.SGD(0.0)
    before = model.get_weights()
    model.fit(x, y, batch_size=4, epochs=2, verbose=0)
    for b, a in zip(before, model.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_an_unchanged_model_keeps_its_traces():
    x, y = data()
    model = two_layer_model()
    model.fit(x, y, batch_size=4, epochs=3, verbose=0)
    model.predict(x, verbose=0)
    layers.Dense(2)(x)                 # another model's change re-checks, keeps the trace
    model.fit(x, y, batch_size=4, epochs=1, verbose=0)
    assert model.train_function.function.trace_count == 1
