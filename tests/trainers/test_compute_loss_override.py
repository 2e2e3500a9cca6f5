"""A Keras 3.0-era ``compute_loss`` override without ``training`` works in ``evaluate`` too:
Keras passes ``training`` only when the override accepts it (issue 22, cause 4)."""
import numpy as np

import lamina
from lamina import layers, ops


class _OldStyle(lamina.Model):
    def __init__(self):
        super().__init__()
        self.dense = layers.Dense(1)

    def call(self, x):
        return self.dense(x)

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None):
        return ops.mean(ops.square(y_pred - y)) * 2.0


class _NewStyle(_OldStyle):
    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        self.seen = training
        return super().compute_loss(x, y, y_pred, sample_weight)


def _data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(16, 3)).astype("float32"), rng.normal(size=(16, 1)).astype("float32")


def test_an_override_without_training_is_called_without_it():
    x, y = _data()
    model = _OldStyle()
    model.compile("sgd")
    model.fit(x, y, epochs=1, batch_size=8, verbose=0)
    loss = model.evaluate(x, y, batch_size=16, verbose=0)
    expected = 2.0 * np.mean((model.predict(x, verbose=0) - y) ** 2)
    np.testing.assert_allclose(loss, expected, rtol=1e-5)


def test_an_override_with_training_gets_false_in_evaluate():
    x, y = _data()
    model = _NewStyle()
    model.compile("sgd", run_eagerly=True)
    model.evaluate(x, y, verbose=0)
    assert model.seen is False
