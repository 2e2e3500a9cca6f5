"""``train_on_batch`` / ``test_on_batch`` report one batch (metrics reset first, as in
Keras 3) and ``predict_on_batch`` takes nested inputs in graph mode. Expected numbers are
Keras 3.15.1's (JAX backend)."""
import numpy as np
import pytest

from lamina import initializers, layers, losses, metrics, optimizers
from lamina.trainers import Trainer


class DenseModel(Trainer, layers.Dense):
    def __init__(self, units):
        layers.Dense.__init__(self, units=units, use_bias=False,
                              kernel_initializer=initializers.Ones())
        Trainer.__init__(self)


class ListInputModel(Trainer, layers.Layer):
    def __init__(self):
        layers.Layer.__init__(self)
        Trainer.__init__(self)
        self.dense_1 = layers.Dense(2, use_bias=False, kernel_initializer="ones")
        self.dense_2 = layers.Dense(2, use_bias=False, kernel_initializer="ones")

    def call(self, x):
        return self.dense_1(x[0]) + self.dense_2(x[1])


@pytest.mark.parametrize("run_eagerly", [True, False])
def test_each_on_batch_call_reports_its_own_batch(run_eagerly):
    model = DenseModel(3)
    model.compile(optimizer=optimizers.SGD(), loss=losses.MeanSquaredError(),
                  metrics=[metrics.MeanSquaredError()], run_eagerly=run_eagerly)
    x, y = np.ones((100, 4)), np.zeros((100, 3))
    trained = [model.train_on_batch(x, y) for _ in range(3)]
    np.testing.assert_allclose(trained, [[16.0, 16.0], [15.158048, 15.158048],
                                         [14.360391, 14.360391]], rtol=1e-5)
    tested = [model.test_on_batch(x, y, return_dict=True) for _ in range(2)]
    assert tested[0] == tested[1]
    assert tested[0]["loss"] == pytest.approx(13.604717, rel=1e-5)


@pytest.mark.parametrize("run_eagerly", [True, False])
def test_predict_on_batch_takes_a_list_of_inputs(run_eagerly):
    model = ListInputModel()
    model.compile(optimizer="sgd", loss="mse", run_eagerly=run_eagerly)
    out = model.predict_on_batch([np.ones((3, 2)), np.ones((3, 3))])
    np.testing.assert_array_equal(out, np.full((3, 2), 5.0))
