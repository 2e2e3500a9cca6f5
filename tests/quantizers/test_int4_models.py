"""int4 models and files: a Keras-written int4 ``.keras`` file (Int4DTypePolicy layers with
block sizes 128 and 4) loads and predicts as Keras, Lamina writes Keras's layout back (and
Keras reads it), ``Model.quantize("int4")``, and graph == eager when training around int4
layers."""
import json
import os
import subprocess
import warnings
import zipfile

import h5py
import numpy as np
import pytest

import lamina
from lamina import layers
from tests.quantizers.fixtures import KERAS_INT4 as KERAS, array, int4_path

INPUTS = [array(KERAS["model_inputs"]["ids"]), array(KERAS["model_inputs"]["feats"])]
KERAS_PYTHON = "/work/kerasenv/bin/python"


def _load():
    return lamina.saving.load_model(int4_path("int4_mixed.keras"))


def test_keras_int4_file_predicts_as_keras():
    model = _load()
    assert [(v.path, v.dtype, list(v.shape)) for v in model.weights] == [
        (w["path"], w["dtype"], w["shape"]) for w in KERAS["model_weights"]]
    assert {layer.name: layer.dtype_policy.name for layer in model.layers} == \
        KERAS["model_policies"]
    assert model.get_layer("logits").kernel_zero.shape == (8, 3)    # 32 rows in groups of 4
    predicted = model.predict(INPUTS, verbose=0)
    # The int4 kernels and scales are Keras's; the float products sum as BLAS does (the
    # einsum in another order than Keras's np.einsum): float32 rounding apart.
    np.testing.assert_allclose(predicted, array(KERAS["model_pred_numpy"]), rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_allclose(predicted, array(KERAS["model_pred"]), rtol=1e-5, atol=1e-5)


def test_keras_int4_weights_file_loads():
    model = _load()
    clone = lamina.models.Model.from_config(model.get_config())
    clone.load_weights(int4_path("int4_mixed.weights.h5"))
    np.testing.assert_array_equal(clone.predict(INPUTS, verbose=0),
                                  model.predict(INPUTS, verbose=0))


def _datasets(filename):
    with h5py.File(filename, "r") as f:
        found = {}
        f.visititems(lambda name, obj: found.setdefault(name, (obj.shape, obj.dtype.name))
                     if isinstance(obj, h5py.Dataset) else None)
    return found


def _unshared(value):
    # Keras marks objects that several layers share (one config passed to model.quantize)
    # with "shared_object_id"; the configs are otherwise the same.
    if isinstance(value, dict):
        return {k: _unshared(v) for k, v in value.items() if k != "shared_object_id"}
    return value


def _layer_configs(filename):
    with zipfile.ZipFile(filename) as archive:
        config = json.loads(archive.read("config.json"))
    return {layer["config"]["name"]: (_unshared(layer["config"]["dtype"]),
                                      _unshared(layer["config"].get("quantization_config")))
            for layer in config["config"]["layers"]}


def test_lamina_writes_keras_layout(tmp_path):
    model = _load()
    target = str(tmp_path / "copy.weights.h5")
    model.save_weights(target)
    assert _datasets(target) == _datasets(int4_path("int4_mixed.weights.h5"))
    saved = str(tmp_path / "copy.keras")
    model.save(saved)
    assert _layer_configs(saved) == _layer_configs(int4_path("int4_mixed.keras"))
    again = lamina.saving.load_model(saved)
    np.testing.assert_array_equal(again.predict(INPUTS, verbose=0),
                                  model.predict(INPUTS, verbose=0))


@pytest.mark.skipif(not os.path.exists(KERAS_PYTHON), reason="needs Keras 3 at "
                    f"{KERAS_PYTHON}")
def test_keras_reads_lamina_int4_file(tmp_path):
    model = _load()
    saved = str(tmp_path / "lamina.keras")
    model.save(saved)
    feed = str(tmp_path / "feed.npz")
    np.savez(feed, ids=INPUTS[0], feats=INPUTS[1])
    script = ("import sys, numpy as np, keras\n"
              "m = keras.saving.load_model(sys.argv[1]); f = np.load(sys.argv[2])\n"
              "np.save(sys.argv[3], m.predict([f['ids'], f['feats']], verbose=0))\n")
    out = str(tmp_path / "pred.npy")
    subprocess.run([KERAS_PYTHON, "-c", script, saved, feed, out], check=True,
                   env={**os.environ, "KERAS_BACKEND": "numpy"}, capture_output=True)
    np.testing.assert_allclose(np.load(out), model.predict(INPUTS, verbose=0), rtol=1e-5,
                               atol=1e-5)


def _mlp(seed, dropout=True):
    rng = np.random.default_rng(seed)
    inputs = lamina.Input((10,))
    h = layers.Dense(16, activation="relu", name="hidden")(inputs)
    if dropout:
        h = layers.Dropout(0.1)(h)
    outputs = layers.Dense(4, name="out")(h)
    model = lamina.Model(inputs, outputs)
    for v in model.weights:
        v.assign(rng.normal(size=v.shape).astype("float32"))
    return model


def test_model_quantize_int4_and_weights_round_trip(tmp_path):
    model = _mlp(0)
    with pytest.warns(UserWarning, match="Layer Dropout does not have a `quantize` method"):
        model.quantize("int4")
    assert model.get_layer("hidden").dtype_policy.name == "int4/128_from_float32"
    x = np.random.default_rng(1).normal(size=(8, 10)).astype("float32")
    target = str(tmp_path / "int4.weights.h5")
    model.save_weights(target)
    other = _mlp(5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        other.quantize("int4")
    other.load_weights(target)
    np.testing.assert_array_equal(other.predict(x, verbose=0), model.predict(x, verbose=0))


@pytest.mark.parametrize("block_size", [None, 4])
def test_training_around_int4_layers_graph_equals_eager(block_size):
    # The bias trains and the gradient reaches 'hidden' through the dequantized int4
    # kernel of 'out', in both modes.
    rng = np.random.default_rng(3)
    x = rng.normal(size=(16, 10)).astype("float32")
    y = rng.normal(size=(16, 4)).astype("float32")
    config = lamina.quantizers.Int4QuantizationConfig(block_size=block_size)
    results = []
    for eager in (True, False):
        model = _mlp(2, dropout=False)
        model.quantize(config=config, filters="out")
        model.compile(optimizer="adam", loss="mse", run_eagerly=eager)
        losses = [float(model.train_on_batch(x, y)) for _ in range(3)]
        results.append((losses, [v.numpy() for v in model.weights]))
    (eager_losses, eager_weights), (graph_losses, graph_weights) = results
    np.testing.assert_allclose(graph_losses, eager_losses, rtol=1e-5)
    assert eager_losses[-1] < eager_losses[0]
    for e, g in zip(eager_weights, graph_weights):
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5)
