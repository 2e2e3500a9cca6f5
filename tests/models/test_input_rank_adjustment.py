"""A functional model adds or drops a trailing size-1 axis to match its Input, as Keras's
``Functional`` does (issue 22, cause 2): ``Input((28, 28, 1))`` takes ``(N, 28, 28)``."""
import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.errors import ShapeError


def _flatten_model(shape):
    inputs = lamina.Input(shape)
    return lamina.Model(inputs, layers.Flatten()(inputs))


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_a_missing_trailing_axis_is_added(run_eagerly):
    model = _flatten_model((4, 4, 1))
    model.compile("sgd", "mse", run_eagerly=run_eagerly)
    x = np.arange(32, dtype="float32").reshape(2, 4, 4)
    np.testing.assert_array_equal(model.predict(x, verbose=0), x.reshape(2, 16))
    np.testing.assert_array_equal(model(x).numpy(), x.reshape(2, 16))
    model.fit(x, np.zeros((2, 16), "float32"), verbose=0)


def test_an_extra_trailing_unit_axis_is_dropped():
    model = _flatten_model((4, 4))
    x = np.arange(32, dtype="float32").reshape(2, 4, 4, 1)
    np.testing.assert_array_equal(model(x).numpy(), x.reshape(2, 16))


def test_other_rank_mismatches_are_still_errors():
    model = _flatten_model((4, 4, 3))
    with pytest.raises(ShapeError, match="expects shape"):
        model(np.zeros((2, 4, 4), "float32"))
    with pytest.raises(ShapeError, match="expects shape"):
        _flatten_model((4, 4))(np.zeros((2, 4, 4, 2), "float32"))
