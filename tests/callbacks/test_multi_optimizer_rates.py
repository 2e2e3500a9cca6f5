"""LearningRateScheduler, ReduceLROnPlateau and TensorBoard with a MultiOptimizer: each
inner optimizer's rate is set and logged (``learning_rate_<name>``), as in Keras 3.15.1."""
import numpy as np

import lamina
from lamina import callbacks, layers, optimizers


def _model():
    fast, slow = optimizers.SGD(0.1, name="fast"), optimizers.SGD(0.01, name="slow")
    multi = optimizers.MultiOptimizer(optimizers.OptimizerMap(
        default_optimizer=slow, optimizer_map={".*first/.*": fast}))
    model = lamina.Sequential([lamina.Input((3,)),
                               layers.Dense(2, use_bias=False, name="first"),
                               layers.Dense(1, use_bias=False, name="second")])
    model.compile(loss="mse", optimizer=multi)
    return model, fast, slow


def test_scheduler_sets_and_logs_each_rate():
    model, fast, slow = _model()
    scheduler = callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5)
    scheduler.set_model(model)
    scheduler.on_epoch_begin(1)
    np.testing.assert_allclose([float(fast.learning_rate), float(slow.learning_rate)],
                               [0.05, 0.005], rtol=1e-6)
    logs = {}
    scheduler.on_epoch_end(1, logs)
    assert sorted(logs) == ["learning_rate_fast", "learning_rate_slow"]
    np.testing.assert_allclose(logs["learning_rate_slow"], 0.005, rtol=1e-6)


def test_plateau_reduces_every_rate_once_per_epoch():
    model, fast, slow = _model()
    reduce = callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=1)
    reduce.set_model(model)
    reduce.on_train_begin()
    reduce.on_epoch_end(0, {"val_loss": 1.0})
    np.testing.assert_allclose([float(fast.learning_rate), float(slow.learning_rate)],
                               [0.1, 0.01], rtol=1e-6)
    logs = {"val_loss": 1.0}
    reduce.on_epoch_end(1, logs)
    np.testing.assert_allclose([float(fast.learning_rate), float(slow.learning_rate)],
                               [0.05, 0.005], rtol=1e-6)
    np.testing.assert_allclose(logs["learning_rate_fast"], 0.1, rtol=1e-6)   # before
    assert reduce.wait == 0


def test_fit_with_a_multi_optimizer_and_the_rate_callbacks(tmp_path):
    model, fast, slow = _model()
    x, y = np.ones((4, 3), "float32"), np.zeros((4, 1), "float32")
    history = model.fit(x, y, epochs=2, verbose=0, callbacks=[
        callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5),
        callbacks.TensorBoard(log_dir=str(tmp_path))])
    np.testing.assert_allclose(history.history["learning_rate_fast"], [0.05, 0.025],
                               rtol=1e-6)
    tensorboard = callbacks.TensorBoard(log_dir=str(tmp_path))
    tensorboard.set_model(model)
    logs = tensorboard._collect_learning_rate({})
    np.testing.assert_allclose([logs["learning_rate_fast"], logs["learning_rate_slow"]],
                               [0.025, 0.0025], rtol=1e-6)


def test_an_unbuilt_multi_optimizer_finalizes_nothing():
    _, fast, slow = _model()
    multi = optimizers.MultiOptimizer(optimizers.OptimizerMap(default_optimizer=slow))
    variable = lamina.Variable([1.0])
    multi.finalize_variable_values([variable])
    np.testing.assert_allclose(variable.numpy(), [1.0])
