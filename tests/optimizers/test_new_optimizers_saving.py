"""The optimizers added in issue 11 in saved files: fit, save (.keras and .weights.h5),
load, and the state comes back variable by variable, so training goes on exactly as
without stopping."""
import h5py
import numpy as np
import pytest

import lamina
from lamina import layers, optimizers
from lamina.saving import load_model

MAKERS = {
    "adafactor": lambda: optimizers.Adafactor(0.05),
    "ftrl": lambda: optimizers.Ftrl(0.1, l1_regularization_strength=0.01),
    "lamb": lambda: optimizers.Lamb(0.01, weight_decay=0.01),
    "muon": lambda: optimizers.Muon(0.01),
    "schedule_free_adam_w": lambda: optimizers.ScheduleFreeAdamW(0.01, warmup_steps=2),
    "multi_optimizer": lambda: optimizers.MultiOptimizer(optimizers.OptimizerMap(
        optimizers.SGD(0.05, momentum=0.5), {".*kernel": optimizers.Adam(0.01)})),
}


def _data():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(16, 5)).astype("float32")
    return x, x[:, :2] * 0.5 - x[:, 2:4]


def _model(optimizer):
    model = lamina.Sequential([lamina.Input((5,)), layers.Dense(4, activation="tanh"),
                               layers.Dense(2)])
    model.compile(optimizer=optimizer, loss="mse")
    return model


def _fit(model, epochs=1):
    x, y = _data()
    return model.fit(x, y, batch_size=8, epochs=epochs, shuffle=False,
                     verbose=0).history["loss"]


def _state(optimizer):
    return [v.numpy() for v in optimizer.variables]


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_keras_file_round_trip(name, tmp_path):
    model = _model(MAKERS[name]())
    _fit(model)
    model.save(tmp_path / "m.keras")
    reloaded = load_model(tmp_path / "m.keras")
    assert type(reloaded.optimizer) is type(model.optimizer)
    assert reloaded.optimizer.get_config() == model.optimizer.get_config()
    saved = _state(model.optimizer)
    assert len(_state(reloaded.optimizer)) == len(saved) > 2
    for a, b in zip(_state(reloaded.optimizer), saved):
        np.testing.assert_array_equal(a, b)
    assert _fit(reloaded) == pytest.approx(_fit(model), rel=1e-6)


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_weights_file_round_trip(name, tmp_path):
    model = _model(MAKERS[name]())
    _fit(model)
    model.save_weights(tmp_path / "m.weights.h5")
    with h5py.File(tmp_path / "m.weights.h5", "r") as f:
        stored = sorted(f["optimizer/vars"].keys(), key=int)
    assert stored == [str(i) for i in range(len(model.optimizer.variables))]
    fresh = _model(MAKERS[name]())
    fresh.load_weights(tmp_path / "m.weights.h5")
    for a, b in zip(_state(fresh.optimizer), _state(model.optimizer)):
        np.testing.assert_array_equal(a, b)
    assert _fit(fresh, 2) == pytest.approx(_fit(model, 2), rel=1e-6)
