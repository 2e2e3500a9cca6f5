"""Whole models train under the global ``mixed_bfloat16`` policy, as
``keras.mixed_precision.set_global_policy("mixed_bfloat16")`` sets it: a VGG-style CNN
(Conv2D 3x3 + ReLU, MaxPooling2D, Flatten, Dense; MaxPooling2D's fill value once asked
numpy's ``iinfo`` of bfloat16 and raised "Invalid integer data type 'V'"), CNNs with
AveragePooling2D, GlobalMaxPooling2D, BatchNormalization and Dropout, and the
784-512-512-10 MLP (ReLU and exact GELU, whose erf once returned float64 for bfloat16).

Each model fits 3 steps in graph mode (the default) and with ``run_eagerly=True`` from the
same seed: the losses are finite and decrease, and the two modes give the same losses,
weights and predictions (to a bfloat16-appropriate tolerance: graph mode fuses the softmax
with the crossentropy, which can move a float32 loss by an ulp and a bfloat16 rounding
with it). The pooling layers run on oneDNN where the library is present and on the numpy
kernels with it off: both are checked."""
from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers

ml_dtypes = pytest.importorskip("ml_dtypes")

STEPS = 3
LOSS_RTOL = 1e-3             # one bfloat16 ulp is 2**-8 = 3.9e-3 relative
WEIGHT_ATOL = 2e-4           # an Adam step moves a weight by about 1e-3


@pytest.fixture
def mixed_bfloat16():
    lamina.mixed_precision.set_global_policy("mixed_bfloat16")
    try:
        yield
    finally:
        lamina.mixed_precision.set_global_policy("float32")


@pytest.fixture(params=[True, False], ids=["onednn", "numpy_kernels"])
def onednn(request, monkeypatch):
    """oneDNN's kernels (where the library loads) or the numpy kernels for pooling and
    convolutions."""
    backend = lamina.backend.get_backend("numpy")
    if not request.param:
        monkeypatch.setattr(backend, "onednn", False)
    with lamina.backend.use("numpy"):
        yield request.param


def _vgg(float32_softmax):
    head = ([layers.Dense(10), layers.Activation("softmax", dtype="float32")]
            if float32_softmax else [layers.Dense(10, activation="softmax")])
    return lamina.Sequential([
        layers.Input((12, 12, 3)),
        layers.Conv2D(8, 3, padding="same", activation="relu"),
        layers.Conv2D(8, 3, padding="same", activation="relu"),
        layers.MaxPooling2D(),
        layers.Conv2D(16, 3, padding="same", activation="relu"),
        layers.MaxPooling2D(3, strides=2, padding="same"),     # pads: the fill value
        layers.Flatten(),
        layers.Dense(32, activation="relu"),
        *head])


def _cnn(middle):
    """A model factory: ``middle()`` makes fresh layers for every model."""
    return lambda: lamina.Sequential([
        layers.Input((12, 12, 3)),
        layers.Conv2D(8, 3, padding="same", activation="relu"),
        *middle(),
        layers.Dense(10, activation="softmax")])


def _mlp(activation):
    return lambda: lamina.Sequential([
        layers.Input((784,)),
        layers.Dense(512, activation=activation),
        layers.Dense(512, activation=activation),
        layers.Dense(10, activation="softmax")])


MODELS = {
    "vgg": lambda: _vgg(float32_softmax=False),
    "vgg_float32_softmax": lambda: _vgg(float32_softmax=True),
    "average_pooling": _cnn(lambda: [
        layers.AveragePooling2D(2), layers.AveragePooling2D(3, strides=2, padding="same"),
        layers.Flatten()]),
    "global_max_pooling": _cnn(lambda: [
        layers.MaxPooling2D(padding="same"), layers.GlobalMaxPooling2D()]),
    "batch_norm_dropout": _cnn(lambda: [
        layers.BatchNormalization(), layers.MaxPooling2D(), layers.Flatten(),
        layers.Dropout(0.3), layers.Dense(16), layers.BatchNormalization(),
        layers.ReLU()]),
    "mlp_relu": _mlp("relu"),
    "mlp_gelu": _mlp("gelu"),
}


def _data(model_name):
    rng = np.random.default_rng(0)
    shape = (784,) if model_name.startswith("mlp") else (12, 12, 3)
    x = rng.normal(size=(16,) + shape).astype("float32")
    y = x.reshape(16, -1)[:, :10].argmax(axis=1)       # labels the inputs determine
    return x, y


def _fit(make, x, y, eager):
    """3 Adam steps on one batch: the history holds each step's loss."""
    lamina.utils.set_random_seed(5)
    model = make()
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  run_eagerly=eager)
    history = model.fit(x, y, batch_size=len(x), epochs=STEPS, shuffle=False, verbose=0)
    return model, history.history["loss"]


@pytest.mark.parametrize("name", list(MODELS))
def test_mixed_bfloat16_model_trains_alike_in_graph_and_eager(
        name, mixed_bfloat16, onednn):
    x, y = _data(name)
    runs = {}
    for eager in (False, True):
        model, losses = _fit(MODELS[name], x, y, eager)
        assert model.layers[0].dtype_policy.name == "mixed_bfloat16"
        assert model.layers[0].compute_dtype == "bfloat16"
        assert all(w.dtype == np.float32 for w in model.get_weights())
        assert len(losses) == STEPS and np.all(np.isfinite(losses))
        if "dropout" in name:         # each step drops other units: the trend only
            assert losses[-1] < losses[0], losses
        else:
            assert all(later < earlier for earlier, later in zip(losses, losses[1:])), losses
        prediction = model.predict(x[:4], verbose=0)
        runs[eager] = losses, model.get_weights(), prediction
    (graph_losses, graph_weights, graph_pred), (eager_losses, eager_weights, eager_pred) = \
        runs[False], runs[True]
    np.testing.assert_allclose(graph_losses, eager_losses, rtol=LOSS_RTOL)
    for a, b in zip(graph_weights, eager_weights):
        np.testing.assert_allclose(a, b, rtol=0, atol=WEIGHT_ATOL)
    out_dtype = "float32" if name == "vgg_float32_softmax" else "bfloat16"
    assert str(graph_pred.dtype) == str(eager_pred.dtype) == out_dtype
    np.testing.assert_allclose(graph_pred.astype("float32"), eager_pred.astype("float32"),
                               rtol=2 ** -7, atol=2 ** -9)


def test_vgg_mixed_bfloat16_several_batches(mixed_bfloat16):
    """The VGG model over 3 batches of an epoch (not one batch 3 times), both modes."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=(24, 12, 12, 3)).astype("float32")
    y = rng.integers(0, 10, size=24)
    results = {}
    for eager in (False, True):
        lamina.utils.set_random_seed(2)
        model = _vgg(float32_softmax=False)
        model.compile("adam", "sparse_categorical_crossentropy", run_eagerly=eager)
        start = [w.copy() for w in model.get_weights()]
        history = model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
        loss = history.history["loss"]
        assert np.all(np.isfinite(loss)) and loss[1] < loss[0]
        assert any(not np.array_equal(a, b) for a, b in zip(model.get_weights(), start))
        results[eager] = loss, model.get_weights(), model.evaluate(x, y, verbose=0)
    np.testing.assert_allclose(results[False][0], results[True][0], rtol=LOSS_RTOL)
    for a, b in zip(results[False][1], results[True][1]):
        np.testing.assert_allclose(a, b, rtol=0, atol=WEIGHT_ATOL)
    np.testing.assert_allclose(results[False][2], results[True][2], rtol=LOSS_RTOL)
