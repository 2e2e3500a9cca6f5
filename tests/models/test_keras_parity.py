"""Real Keras models rebuilt in Lamina give Keras's predictions.

``tests/fixtures/keras_files`` holds files written by Keras 3.15.1 and tf_keras 2.21 for
three small trained models, with an input ``x0`` and Keras's prediction ``pred`` for it.
Here each architecture is written by hand with Lamina's layers, the weights are copied
with ``set_weights`` in the order the legacy .h5 file lists them (Keras's
``get_weights()`` order), and the prediction must match Keras's to float32 precision.
"""
import json
import pathlib

import h5py
import numpy as np
import pytest

import lamina
from lamina import layers

FIXTURES = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "keras_files"


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


def keras_weights(path) -> list:
    """The model's weights in Keras's get_weights() order, from a legacy .h5 file."""
    with h5py.File(path, "r") as f:
        group = f["model_weights"]
        names = [_text(n) for n in group.attrs["layer_names"]]
        arrays = []
        for name in names:
            layer = group[name]
            for weight in layer.attrs["weight_names"]:
                arrays.append(np.asarray(layer[_text(weight)]))
        return arrays


def reference(name):
    data = np.load(FIXTURES / f"{name}_ref.npz")
    return data["x0"], data["pred"]


def dense_bn():
    return lamina.Sequential([
        lamina.Input((10,)), layers.Dense(12), layers.BatchNormalization(),
        layers.Activation("relu"), layers.Dropout(0.1), layers.Dense(4, activation="softmax")])


def small_cnn():
    return lamina.Sequential([
        lamina.Input((10, 10, 2)), layers.Conv2D(4, 3, activation="relu"),
        layers.MaxPooling2D(), layers.Conv2D(6, 2, padding="same", activation="relu"),
        layers.GlobalAveragePooling2D(), layers.Dense(3)])


def gru_text():
    return lamina.Sequential([
        lamina.Input((6,), dtype="int32"), layers.Embedding(20, 4), layers.GRU(5),
        layers.Dense(2, activation="softmax")])


BUILDERS = {"dense_bn": dense_bn, "small_cnn": small_cnn, "gru_text": gru_text}


@pytest.mark.parametrize("version", ["k3", "k2"])
@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_lamina_predicts_what_keras_predicted(name, version):
    model = BUILDERS[name]()
    model.set_weights(keras_weights(FIXTURES / f"{name}_{version}.h5"))
    x0, pred = reference(f"{name}_{version}")
    np.testing.assert_allclose(model(x0).numpy(), pred, rtol=1e-4, atol=1e-5)


def test_parameter_counts_equal_keras():
    for name, builder in BUILDERS.items():
        with h5py.File(FIXTURES / f"{name}_k3.h5", "r") as f:
            config = json.loads(_text(f.attrs["model_config"]))
        model = builder()
        keras_count = sum(a.size for a in keras_weights(FIXTURES / f"{name}_k3.h5"))
        assert model.count_params() == keras_count, name
        assert len(model.layers) == len(config["config"]["layers"]) - 1
