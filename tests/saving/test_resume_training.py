"""Train N epochs, save, load, train M more: the same losses and weights as N + M epochs
without stopping, because the optimizer's state (step count, slots) is saved too."""
import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.saving import load_model

from .helpers import assert_identical, snapshot

OPTIMIZERS = {"adam": lambda: lamina.optimizers.Adam(0.01),
              "sgd_momentum": lambda: lamina.optimizers.SGD(0.05, momentum=0.9)}
N, M = 2, 3


def data():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(32, 6)).astype("float32")
    return x, (x[:, 0] + x[:, 1] > 0).astype("int32") + 2 * (x[:, 2] > 0.5)


def model_like(reference=None):
    model = lamina.Sequential([lamina.Input((6,)), layers.Dense(8), layers.BatchNormalization(),
                               layers.Activation("relu"), layers.Dense(4, activation="softmax")])
    if reference is not None:
        model.set_weights(reference.get_weights())
    return model


def fit(model, epochs, initial_epoch=0):
    x, y = data()
    history = model.fit(x, y, batch_size=8, epochs=epochs, initial_epoch=initial_epoch,
                        shuffle=False, verbose=0)
    return history.history["loss"]


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_resume_from_keras_file(name, tmp_path):
    straight = model_like()
    resumed = model_like(straight)
    for model in (straight, resumed):
        model.compile(optimizer=OPTIMIZERS[name](), loss="sparse_categorical_crossentropy",
                      metrics=["accuracy"])
    expected = fit(straight, N + M)
    first = fit(resumed, N)
    resumed.save(tmp_path / "ckpt.keras")
    reloaded = load_model(tmp_path / "ckpt.keras")
    assert int(reloaded.optimizer.iterations.numpy()) == N * 4
    second = fit(reloaded, N + M, initial_epoch=N)
    np.testing.assert_allclose(first + second, expected, rtol=1e-6)
    np.testing.assert_allclose(first[0], expected[0], rtol=0)     # same start
    for a, b in zip(snapshot(reloaded), snapshot(straight)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_resume_from_weights_file_into_a_new_compiled_model(name, tmp_path):
    straight = model_like()
    resumed = model_like(straight)
    for model in (straight, resumed):
        model.compile(optimizer=OPTIMIZERS[name](), loss="sparse_categorical_crossentropy")
    expected = fit(straight, N + M)
    first = fit(resumed, N)
    resumed.save_weights(tmp_path / "ckpt.weights.h5")
    fresh = model_like()
    fresh.compile(optimizer=OPTIMIZERS[name](), loss="sparse_categorical_crossentropy")
    fresh.load_weights(tmp_path / "ckpt.weights.h5")       # builds the optimizer, then loads
    assert_identical(snapshot(fresh), snapshot(resumed))
    second = fit(fresh, N + M, initial_epoch=N)
    np.testing.assert_allclose(first + second, expected, rtol=1e-6)
