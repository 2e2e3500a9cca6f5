"""``Trainer`` mixed into a plain layer (Keras 3's ``class M(Trainer, layers.Dense)``), and
models whose outputs are named only when they run. Expected numbers are Keras 3.15.1's
(JAX backend), from its trainers/trainer_test.py."""
import numpy as np
import pytest

from lamina import initializers, layers, losses, metrics, optimizers
import lamina
from lamina.trainers import Trainer


class DenseModel(Trainer, layers.Dense):
    def __init__(self, units):
        layers.Dense.__init__(self, units=units, use_bias=False,
                              kernel_initializer=initializers.Ones())
        Trainer.__init__(self)


class TwoDense(Trainer, layers.Layer):
    """Two outputs, as a dict (``as_dict``) or a list: no output names declared."""

    def __init__(self, as_dict):
        layers.Layer.__init__(self)
        Trainer.__init__(self)
        self.as_dict = as_dict
        self.dense_1 = layers.Dense(3, use_bias=False, kernel_initializer="ones")
        self.dense_2 = layers.Dense(3, use_bias=False, kernel_initializer="ones")

    def call(self, x):
        if self.as_dict:
            return {"y_one": self.dense_1(x["x_one"]), "y_two": self.dense_2(x["x_two"])}
        return [self.dense_1(x), self.dense_2(x)]


def test_trainer_init_sets_compile_state_and_keeps_the_layer():
    model = DenseModel(3)
    model.build((None, 4))
    assert model.name.startswith("dense_model") and model.units == 3
    assert len(model.weights) == 1 and not model.compiled
    assert model._compile_loss is None and model._loss_tracker is None
    assert model.loss is None and model.steps_per_execution == 1
    assert model.metrics == []
    np.testing.assert_array_equal(model.kernel.numpy(), np.ones((4, 3)))


@pytest.mark.parametrize("run_eagerly", [True, False])
def test_a_layer_mixed_with_trainer_fits_like_keras(run_eagerly):
    model = DenseModel(3)
    model.compile(optimizer=optimizers.SGD(), loss=losses.MeanSquaredError(),
                  metrics=[metrics.MeanSquaredError()], loss_weights=0.2,
                  run_eagerly=run_eagerly)
    history = model.fit(np.ones((40, 4)), np.zeros((40, 3)), batch_size=20, epochs=3,
                        verbose=0).history
    np.testing.assert_allclose(history["loss"], [3.182979, 3.115617, 3.049681], atol=1e-4)
    # loss tracker + compiled metric, each a total and a count (Keras: 4 variables)
    assert len(model.metrics_variables) == 4
    assert model.metrics_variables[:2] == model._loss_tracker.variables


@pytest.mark.parametrize("run_eagerly", [True, False])
@pytest.mark.parametrize("as_dict", [True, False])
def test_outputs_named_when_the_model_runs(as_dict, run_eagerly):
    model = TwoDense(as_dict)
    if as_dict:
        loss = {"y_one": losses.MeanSquaredError(), "y_two": losses.MeanSquaredError()}
        weights = {"y_one": 0.1, "y_two": 0.2}
        x = {"x_one": np.ones((40, 4)), "x_two": np.ones((40, 4))}
        y = {"y_one": np.zeros((40, 3)), "y_two": np.zeros((40, 3))}
    else:
        loss, weights = [losses.MeanSquaredError(), losses.MeanSquaredError()], [0.1, 0.2]
        x, y = np.ones((40, 4)), [np.zeros((40, 3)), np.zeros((40, 3))]
    model.compile(optimizer=optimizers.SGD(), loss=loss, loss_weights=weights,
                  metrics=[metrics.MeanSquaredError(), metrics.MeanSquaredError()]
                  if not as_dict else None, run_eagerly=run_eagerly)
    history = model.fit(x, y, batch_size=20, epochs=3, verbose=0).history
    np.testing.assert_allclose(history["loss"], [4.778718, 4.694403, 4.611693], atol=1e-4)
    # Keras 3.15.1: no output names; a dict's keys name the losses, a list's losses are
    # named after the loss (both trackers log as "mean_squared_error_loss", the last one
    # wins) and repeated metric names get "_1".
    assert model._compile_loss.output_names is None
    first, second = [15.957392, 15.787857, 15.620128], [15.914896, 15.578084, 15.248401]
    if as_dict:
        assert sorted(history) == ["loss", "y_one_loss", "y_two_loss"]
        np.testing.assert_allclose(history["y_one_loss"], first, rtol=1e-5)
        np.testing.assert_allclose(history["y_two_loss"], second, rtol=1e-5)
    else:
        assert sorted(history) == ["loss", "mean_squared_error", "mean_squared_error_1",
                                   "mean_squared_error_loss"]
        np.testing.assert_allclose(history["mean_squared_error"], first, rtol=1e-5)
        np.testing.assert_allclose(history["mean_squared_error_1"], second, rtol=1e-5)
        np.testing.assert_allclose(history["mean_squared_error_loss"], second, rtol=1e-5)


def test_unknown_loss_and_bad_loss_weights_fail_at_compile_without_output_names():
    with pytest.raises(ValueError, match="msee"):
        TwoDense(False).compile(optimizer="sgd", loss=["mse", "msee"])
    with pytest.raises(ValueError, match=r"Expected `loss_weights` argument to be a float.*"
                                         r"'heavy'"):
        TwoDense(False).compile(optimizer="sgd", loss="mse", loss_weights=[0.1, "heavy"])


def test_a_loss_on_some_outputs_takes_targets_for_those_only():
    inputs = lamina.Input((2,))
    h = layers.Dense(3, kernel_initializer="ones")(inputs)
    partial = lamina.Model(inputs, [h, h, h])
    partial.compile(loss=["mse", None, None])
    logs = partial.evaluate(np.ones((32, 2)), np.ones((32, 3)), return_dict=True, verbose=0)
    assert logs["loss"] == pytest.approx(1.0)       # Keras: {'loss': 1.0}
