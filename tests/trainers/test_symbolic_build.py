"""``Trainer._symbolic_build(data_batch=...)`` and ``CompileLoss.metrics`` (Keras 3: the
compiled loss and metrics are built from one batch, weights and metric values untouched)."""
import numpy as np
import pytest

from lamina import layers, losses, metrics, optimizers
from lamina.trainers.trainer import Trainer


class TwoOutputs(Trainer, layers.Layer):
    def __init__(self):
        layers.Layer.__init__(self)
        Trainer.__init__(self)
        self.dense = layers.Dense(3)
        self.bn = layers.BatchNormalization()

    def call(self, x, training=None):
        out = self.bn(self.dense(x), training=training)
        return [out, out]


def _compiled():
    model = TwoOutputs()
    model.compile(optimizer=optimizers.SGD(),
                  loss=[losses.MeanSquaredError(), losses.MeanSquaredError()],
                  metrics=[metrics.MeanSquaredError(), metrics.MeanSquaredError()])
    return model


def test_symbolic_build_builds_loss_and_metrics_without_changing_state():
    model = _compiled()
    x, y = np.ones((4, 4)), np.zeros((4, 3))
    model(x)
    before = model.get_weights()
    assert not model._compile_loss.built and not model._compile_metrics.built
    assert model._compile_loss.metrics == [] and len(model.metrics) == 2
    model._symbolic_build(data_batch=(x, (y, y)))
    assert model._compile_loss.built and model._compile_metrics.built
    assert len(model._compile_metrics.metrics) == 2
    assert len(model._compile_loss.metrics) == 2 and len(model.metrics) == 4
    for w, ref in zip(model.get_weights(), before):
        np.testing.assert_array_equal(w, ref)
    for v in model._compile_metrics.variables + model._compile_loss.variables:
        np.testing.assert_array_equal(np.asarray(v), 0.0)


def test_symbolic_build_needs_a_batch():
    with pytest.raises(ValueError, match="data_batch"):
        _compiled()._symbolic_build()
    with pytest.raises(NotImplementedError, match="iterator"):
        _compiled()._symbolic_build(iterator=iter([]))
