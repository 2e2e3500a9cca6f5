"""``model.stop_evaluating`` / ``model.stop_predicting``, set by a callback, end
``evaluate`` / ``predict`` after the current batch (Keras 3), as ``stop_training`` ends
``fit``."""
import warnings

import numpy as np
import pytest

import lamina
from lamina import layers


def _batches(with_targets):
    while True:
        yield (np.ones((2, 2)), np.ones((2, 3))) if with_targets else (np.ones((2, 2)),)


class Stopper(lamina.callbacks.Callback):
    def __init__(self, hook, flag, count):
        super().__init__()
        self.flag, self.count, self.seen = flag, count, 0
        setattr(self, hook, self._batch_end)

    def _batch_end(self, *args, **kwargs):
        self.seen += 1
        if self.seen == self.count:
            setattr(self.model, self.flag, True)


@pytest.mark.parametrize("method, hook, flag", [
    ("fit", "on_train_batch_end", "stop_training"),
    ("evaluate", "on_test_batch_end", "stop_evaluating"),
    ("predict", "on_predict_batch_end", "stop_predicting"),
])
def test_a_callback_stops_the_loop(method, hook, flag):
    model = lamina.Sequential([lamina.Input((2,)), layers.Dense(3)])
    model.compile(optimizer="sgd", loss="mse")
    stopper = Stopper(hook, flag, 5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # stopped on purpose: no "ran out" warning
        result = getattr(model, method)(_batches(method != "predict"), callbacks=[stopper],
                                        verbose=0)
    assert stopper.seen == 5
    if method == "predict":
        assert result.shape == (10, 3)
    # the next run starts with the flag down
    stopper.seen, stopper.count = 0, 2
    getattr(model, method)(_batches(method != "predict"), callbacks=[stopper], verbose=0)
    assert stopper.seen == 2
