"""A callback sees the model's state as of the batch that just ran (Keras 3's
callback_test), with a counter made by ``Layer.add_variable``, Keras's alias of
``add_weight``."""
import numpy as np
import pytest

import lamina
from lamina import callbacks


class CountingModel(lamina.Model):
    def __init__(self):
        super().__init__()
        self.calls = self.add_variable(shape=(), initializer="zeros", trainable=False)

    def call(self, inputs):
        self.calls.assign(self.calls + 1)
        return inputs


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_callbacks_see_the_current_counter(run_eagerly):
    model = CountingModel()
    assert model.calls.trainable is False and model.calls.shape == ()
    model.compile(optimizer="sgd", loss="mse", run_eagerly=run_eagerly)
    seen = []
    record = callbacks.LambdaCallback(
        on_batch_end=lambda batch, logs: seen.append((batch, int(model.calls.numpy()))))
    x = np.random.random((8, 1)).astype("float32")
    model.fit(x, x, batch_size=2, epochs=1, verbose=0, callbacks=[record])
    assert seen == [(0, 1), (1, 2), (2, 3), (3, 4)]


def test_add_variable_is_add_weight():
    layer = lamina.layers.Dense(2)
    variable = layer.add_variable((3,), "ones", dtype="float64", name="scale")
    assert variable.dtype == "float64" and variable.trainable
    np.testing.assert_array_equal(variable.numpy(), np.ones(3))
    assert any(w is variable for w in layer.weights)
