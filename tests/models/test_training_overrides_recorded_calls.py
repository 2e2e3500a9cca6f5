"""Keras 3's rule for ``training`` in a functional model: when the model runs with a
``training`` value (passed, inherited from an outer call, or set by fit/evaluate/predict),
that value replaces the one each layer call recorded when the graph was built. So
``base_model(x, training=False)`` runs in training mode under ``fit`` (the transfer-learning
guide's unfrozen BatchNormalization updates its moving statistics: keras-team/keras#20285),
and ``Dropout(0.5)(x, training=True)`` does not drop in ``predict``. The recorded value
still applies when the model runs without one (``model(x)``).

The expected values are Keras 3.15.1's (JAX backend), checked with /work/kerasenv."""
import numpy as np

import lamina
from lamina import layers


def setup_function():
    lamina.backend.clear_session(free_memory=False)


def _ones():
    return np.ones((2, 1000), "float32")


def _drops(y) -> bool:
    return bool((np.asarray(y) == 0).any())


def _dropout_model(recorded: bool):
    inputs = lamina.Input((1000,))
    return lamina.Model(inputs, layers.Dropout(0.5, seed=1)(inputs, training=recorded))


def test_fit_trains_an_unfrozen_base_called_with_training_false():
    x = np.arange(12, dtype="float32").reshape(4, 3) / 4.0
    y = np.zeros((4, 1), "float32")
    base = lamina.Sequential([lamina.Input((3,)), layers.BatchNormalization()])
    bn = base.layers[0]
    base.trainable = False
    inputs = lamina.Input((3,))
    model = lamina.Model(inputs, layers.Dense(1)(base(inputs, training=False)))
    model.compile(optimizer=lamina.optimizers.SGD(0.0), loss="mse")
    model.fit(x, y, batch_size=4, epochs=1, verbose=0, shuffle=False)
    # frozen: BatchNormalization runs in inference mode whatever the training flag
    np.testing.assert_array_equal(bn.moving_mean.numpy(), [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(bn.moving_variance.numpy(), [1.0, 1.0, 1.0])

    base.trainable = True
    model.compile(optimizer=lamina.optimizers.SGD(0.0), loss="mse")
    model.fit(x, y, batch_size=4, epochs=1, verbose=0, shuffle=False)
    # Keras: fit's training=True replaces the recorded training=False (one step, momentum 0.99)
    np.testing.assert_allclose(bn.moving_mean.numpy(), [0.01125, 0.01375, 0.01625], rtol=1e-6)
    np.testing.assert_allclose(bn.moving_variance.numpy(), [0.99703127] * 3, rtol=1e-6)
    model.evaluate(x, y, verbose=0)             # evaluate runs it in inference mode
    np.testing.assert_allclose(bn.moving_mean.numpy(), [0.01125, 0.01375, 0.01625], rtol=1e-6)


def test_predict_and_training_false_replace_a_recorded_training_true():
    model, x = _dropout_model(recorded=True), _ones()
    assert not _drops(model.predict(x, verbose=0))
    assert not _drops(model(x, training=False))
    assert _drops(model(x))                     # no value given: the recorded one applies


def test_training_true_replaces_a_recorded_training_false():
    model, x = _dropout_model(recorded=False), _ones()
    assert _drops(model(x, training=True))
    assert not _drops(model(x))


def test_a_training_value_inherited_from_an_outer_call_replaces_the_recorded_one():
    inner = _dropout_model(recorded=False)

    class Wrapper(lamina.Model):
        def __init__(self):
            super().__init__()
            self.inner = inner

        def call(self, x, training=None):
            return self.inner(x)                # training reaches inner from the context

    wrapper, x = Wrapper(), _ones()
    assert _drops(wrapper(x, training=True))
    assert not _drops(wrapper(x, training=False))
