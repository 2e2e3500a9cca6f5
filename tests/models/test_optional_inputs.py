"""Input(optional=True) (Keras 3): the model takes None for it, and the layers it feeds
receive None; a required Input given None is an error naming it."""
import numpy as np
import pytest

import lamina
from lamina import layers


class AddIfGiven(layers.Layer):
    def call(self, x, y=None):
        return x if y is None else x + y

    def compute_output_shape(self, x_shape, y_shape=None):
        return x_shape


def _model(optional=True):
    x = lamina.Input((2,), name="x")
    o = lamina.Input((2,), name="o", optional=optional)
    outputs = layers.Dense(1, kernel_initializer="ones", name="d")(AddIfGiven()(x, o))
    return lamina.Model({"x": x, "o": o}, outputs)


def test_none_for_an_optional_input_reaches_the_layer_as_none():
    model = _model()
    ones = np.ones((2, 2), "float32")
    np.testing.assert_allclose(model({"x": ones, "o": None}), [[2.0], [2.0]])
    np.testing.assert_allclose(model({"x": ones, "o": ones}), [[4.0], [4.0]])
    # graph mode (predict) gives the same numbers
    np.testing.assert_allclose(model.predict({"x": ones, "o": None}, verbose=0),
                               [[2.0], [2.0]])


def test_fit_and_evaluate_with_none_for_the_optional_input():
    x = np.ones((4, 2), "float32")
    y = np.zeros((4, 1), "float32")
    losses = {}
    for eager in (False, True):
        model = _model()
        model.compile(loss="mse", optimizer="sgd", run_eagerly=eager)
        history = model.fit({"x": x, "o": None}, y, epochs=2, batch_size=2, verbose=0)
        losses[eager] = history.history["loss"] + [model.evaluate({"x": x, "o": None}, y,
                                                                  verbose=0)]
    assert 0 < losses[False][2] < losses[False][1] < losses[False][0] < 4.0   # from (2-0)^2
    np.testing.assert_allclose(losses[False], losses[True], rtol=1e-5)


def test_none_for_a_required_input_is_an_error():
    with pytest.raises(ValueError, match=r"input 'o' is not optional; received None"):
        _model(optional=False)({"x": np.ones((2, 2), "float32"), "o": None})
