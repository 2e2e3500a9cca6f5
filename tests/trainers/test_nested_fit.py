"""fit / evaluate called from a callback of a running fit are independent runs."""
import numpy as np

import lamina
from lamina import layers
from tests.trainers.common import data, fresh_session


setup_function = fresh_session


def model(weights=None):
    m = lamina.Sequential([lamina.Input((4,)), layers.Dense(3)])
    if weights is not None:
        m.set_weights(weights)
    m.compile(lamina.optimizers.SGD(0.05), "mse")
    return m


class FitInside(lamina.callbacks.Callback):
    def __init__(self, x, y, callbacks=None):
        super().__init__()
        self.x, self.y, self.callbacks = x, y, callbacks
        self.inner = None

    def on_epoch_end(self, epoch, logs=None):
        if epoch == 0:
            self.inner = self.model.fit(self.x, self.y, epochs=2, verbose=0,
                                        callbacks=self.callbacks)


def test_a_fit_inside_a_callback_keeps_the_outer_history():
    x, y = data()
    m = model()
    callback = FitInside(x, y)
    outer = m.fit(x, y, epochs=3, batch_size=4, verbose=0, callbacks=[callback])
    assert outer.epoch == [0, 1, 2]
    assert len(outer.history["loss"]) == 3
    assert callback.inner is not outer
    assert callback.inner.epoch == [0, 1]
    assert len(callback.inner.history["loss"]) == 2
    assert m.history is outer


def test_a_fit_inside_a_callback_that_stops_does_not_stop_the_outer_fit():
    x, y = data()

    class StopAtOnce(lamina.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            self.model.stop_training = True
    callback = FitInside(x, y, callbacks=[StopAtOnce()])
    outer = model().fit(x, y, epochs=3, verbose=0, callbacks=[callback])
    assert callback.inner.epoch == [0]
    assert outer.epoch == [0, 1, 2]


def test_evaluate_inside_a_callback_leaves_the_running_metrics_alone():
    x, y = data()
    plain = model()
    probed = model(plain.get_weights())
    evaluated = []

    class EvaluateEveryBatch(lamina.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            evaluated.append(self.model.evaluate(x, y, verbose=0))
    expected = plain.fit(x, y, epochs=2, batch_size=4, shuffle=False, verbose=0)
    history = probed.fit(x, y, epochs=2, batch_size=4, shuffle=False, verbose=0,
                         callbacks=[EvaluateEveryBatch()])
    assert len(evaluated) == 8
    np.testing.assert_allclose(history.history["loss"], expected.history["loss"],
                               rtol=1e-6)
