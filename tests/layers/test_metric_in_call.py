"""A metric updated inside a layer's ``call`` while a functional model is built: Keras skips
variable updates on symbolic tensors, so building works and real calls update the metric
(issue 22, cause 1)."""
import numpy as np
import pytest

import lamina
from lamina import layers


class _Tracked(layers.Layer):
    def __init__(self):
        super().__init__()
        self.activation_mean = lamina.metrics.Mean(name="activation_mean")

    def call(self, x):
        self.activation_mean.update_state(x)
        return x * 2.0


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_building_skips_the_update_and_calls_make_it(run_eagerly):
    inputs = lamina.Input((3,))
    tracked = _Tracked()
    model = lamina.Model(inputs, tracked(inputs))
    assert float(tracked.activation_mean.count.numpy()) == 0.0     # building wrote nothing
    model.compile("sgd", "mse", run_eagerly=run_eagerly)
    x = np.arange(6, dtype="float32").reshape(2, 3)
    np.testing.assert_allclose(model.predict(x, verbose=0), 2 * x)
    assert float(tracked.activation_mean.result().numpy()) == pytest.approx(2.5)


def test_assigning_a_symbolic_value_outside_a_trace_changes_nothing():
    v = lamina.Variable(np.array([1.0, 2.0], "float32"))
    x = lamina.Input((2,), batch_size=1)[0]
    v.assign(x)
    v.assign_add(x)
    v.assign_sub(x)
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
