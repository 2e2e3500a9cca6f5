"""Models thousands of layers deep: every walk over them (the functional graph's order,
tracing, autodiff, the passes, the memory plan, summary, configs, the saved object graph)
uses an explicit stack, so none runs into Python's recursion limit (issue 10, items 5, 8).
"""
import sys

import numpy as np
import pytest

import lamina
from lamina import layers

DEPTH = 3000


def setup_function():
    lamina.backend.clear_session(free_memory=False)


def _dense():
    # _orthogonal_kernels sets every kernel: zeros spare drawing 3000 random kernels that
    # would be thrown away (these tests are about depth, not initializers)
    return layers.Dense(2, kernel_initializer="zeros")


def _orthogonal_kernels(model):
    """Random 2x2 rotations and reflections as kernels, zero biases: orthogonal kernels keep
    the norm through 3000 layers, so values neither vanish nor overflow and the comparisons
    below compare real numbers. Set from numpy: the ``orthogonal`` initializer runs ~20
    eager ops per kernel, once when the model is built and once more when it is loaded,
    about a sixth of these tests' time."""
    rng = np.random.default_rng(1)
    for layer in model.layers:
        if isinstance(layer, layers.Dense):
            angle = rng.uniform(0, 2 * np.pi)
            cos, sin = np.cos(angle), np.sin(angle)
            kernel = np.array([[cos, -sin], [sin, cos]], "float32")
            if rng.random() < 0.5:
                kernel[:, 1] *= -1                          # a reflection
            layer.set_weights([kernel, np.zeros(2, "float32")])
    return model


def _data():
    rng = np.random.default_rng(0)
    return (rng.standard_normal((16, 2)).astype("float32"),
            rng.standard_normal((16, 2)).astype("float32"))


def _check_trains(model):
    assert DEPTH > 2 * sys.getrecursionlimit()        # a recursive walk could not pass
    assert sum(isinstance(layer, layers.Dense) for layer in model.layers) == DEPTH
    x, y = _data()
    model.compile(optimizer=lamina.optimizers.SGD(1e-4), loss="mse")
    predicted = model.predict(x, batch_size=8, verbose=0)
    step = model.predict_function                 # graph mode: traced, never run eagerly
    assert step.eager_calls == 0 and step.function.trace_count == 1
    assert np.isfinite(predicted).all() and np.abs(predicted).max() > 1e-3
    np.testing.assert_allclose(predicted, model(x).numpy(), rtol=1e-5, atol=1e-6)
    history = model.fit(x, y, batch_size=8, epochs=1, verbose=0)
    step = model.train_function        # the first step builds the optimizer eagerly (by
    assert step.eager_calls == 1 and not step.eager   # design), the second runs the trace
    assert step.function.trace_count == 1
    assert np.isfinite(history.history["loss"][0])
    trained = model.predict(x, batch_size=8, verbose=0)
    assert np.isfinite(trained).all() and not np.array_equal(trained, predicted)

    lines = []
    model.summary(print_fn=lines.append)
    text = "\n".join(lines)
    assert f"Trainable params: {DEPTH * 6:,}" in text
    assert model.layers[1].name in text and model.layers[-1].name in text


def _check_saves(model, tmp_path):
    """The saved object graph, config and weights of a model 3000 layers deep, and a load
    that rebuilds, reads and traces it (its own test: each stays under 10 s on 2 cores)."""
    x, _ = _data()
    model.compile(optimizer=lamina.optimizers.SGD(1e-4), loss="mse")
    path = tmp_path / "deep.keras"
    model.save(path)
    loaded = lamina.saving.load_model(path)
    assert [layer.name for layer in loaded.layers] == [layer.name for layer in model.layers]
    for a, b in zip(model.get_weights(), loaded.get_weights()):
        np.testing.assert_array_equal(a, b)
    assert loaded.optimizer.learning_rate.numpy() == np.float32(1e-4)
    # eager against eager: the same weights give the same numbers (graph mode at this
    # depth is _check_trains's)
    np.testing.assert_array_equal(loaded(x).numpy(), model(x).numpy())


def _sequential():
    model = lamina.Sequential([lamina.Input((2,))] + [_dense() for _ in range(DEPTH)])
    assert model.built and model.output_shape == (None, 2)
    return _orthogonal_kernels(model)


def _functional():
    inputs = lamina.Input((2,))
    x = inputs
    for _ in range(DEPTH):
        x = _dense()(x)
    model = lamina.Model(inputs, x)
    assert [type(layer).__name__ for layer in model.layers[:2]] == ["InputLayer", "Dense"]
    return _orthogonal_kernels(model)


@pytest.mark.slow
@pytest.mark.filterwarnings("error")       # a step that falls back to eager mode fails
def test_3000_layer_sequential_builds_trains_and_summarizes():
    _check_trains(_sequential())


@pytest.mark.slow
@pytest.mark.filterwarnings("error")
def test_3000_layer_sequential_saves_and_loads(tmp_path):
    _check_saves(_sequential(), tmp_path)


@pytest.mark.slow
@pytest.mark.filterwarnings("error")
def test_3000_layer_functional_chain_builds_trains_and_summarizes():
    _check_trains(_functional())


@pytest.mark.slow
@pytest.mark.filterwarnings("error")
def test_3000_layer_functional_chain_saves_and_loads(tmp_path):
    _check_saves(_functional(), tmp_path)


def test_duplicate_names_are_refused_when_building_from_a_list_or_a_config():
    with pytest.raises(ValueError, match=r"seq.add: all layers of a Sequential model should "
                                         r"have unique names; 'd' is already used"):
        lamina.Sequential([layers.Dense(2, name="d"), layers.Dense(2, name="e"),
                           layers.Dense(2, name="d")], name="seq")
    config = lamina.Sequential([lamina.Input((2,)), layers.Dense(2, name="d")],
                               name="seq").get_config()
    config["layers"].append(config["layers"][-1])
    with pytest.raises(ValueError, match=r"unique names; 'd' is already used"):
        lamina.Sequential.from_config(config)
    with pytest.raises(ValueError, match=r"unique names; 'x' is already used"):
        lamina.Sequential([lamina.Input((2,), name="x"), layers.Dense(2, name="x")])
    lamina.backend.clear_session()
    with pytest.raises(ValueError, match=r"unique names; 'input_layer' is already used"):
        lamina.Sequential([layers.Dense(2, input_shape=(2,)),      # adds an InputLayer
                           layers.Dense(2, name="input_layer")])


def test_a_980_layer_sequential_that_saves_loads(tmp_path):
    # Issue 10 item 8: from a script this model built, trained and saved, then load_model
    # hit the recursion limit (under pytest's deeper stack it already failed to build).
    model = _orthogonal_kernels(
        lamina.Sequential([lamina.Input((2,))] + [_dense() for _ in range(980)]))
    x, _ = _data()
    path = tmp_path / "deep.keras"
    model.save(path)
    loaded = lamina.saving.load_model(path)
    np.testing.assert_array_equal(loaded(x).numpy(), model(x).numpy())
