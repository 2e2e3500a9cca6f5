"""Legacy .h5 files written by real Keras (tf_keras 2.21 and Keras 3.15) load, predict what
Keras predicted, come back compiled with their optimizer state, and resume training as
Keras resumed it."""
import h5py
import numpy as np
import pytest

import lamina
from lamina.models import load_model

from .legacy_files import KERAS_FILES, RESUMED, as_list, group, keras_file, reference


@pytest.mark.parametrize("path", KERAS_FILES, ids=lambda p: p.stem)
def test_keras_files_predict_what_keras_predicted(path):
    ref = reference(path)
    model = load_model(path)
    outputs = as_list(model.predict(group(ref, "x"), verbose=0))
    expected = as_list(group(ref, "pred"))
    assert len(outputs) == len(expected)
    for output, pred in zip(outputs, expected):
        np.testing.assert_allclose(output, pred, rtol=0, atol=1e-5)


@pytest.mark.parametrize("name", [f"{n}_{v}" for n in RESUMED for v in ("k2", "k3")])
def test_training_resumes_as_it_did_in_keras(name):
    """One more epoch from the loaded state (weights, optimizer slots, iteration count)
    gives Keras's loss and Keras's weights: the state came back whole."""
    path = keras_file(name)
    ref = reference(path)
    model = load_model(path)
    history = model.fit(group(ref, "fit_x"), group(ref, "fit_y"), epochs=1, batch_size=8,
                        shuffle=False, verbose=0)
    np.testing.assert_allclose(history.history["loss"][0], ref["resumed_loss"], rtol=1e-5)
    outputs = as_list(model.predict(group(ref, "x"), verbose=0))
    for output, pred in zip(outputs, as_list(group(ref, "resumed_pred"))):
        np.testing.assert_allclose(output, pred, rtol=0, atol=1e-5)


@pytest.mark.parametrize("version", ["k2", "k3"])
def test_compile_config_comes_back(version):
    model = load_model(keras_file(f"multi_io_{version}"))
    assert isinstance(model.optimizer, lamina.optimizers.SGD)
    assert model.optimizer.momentum == pytest.approx(0.9)
    assert float(model.optimizer.learning_rate.numpy()) == pytest.approx(0.05)
    assert int(model.optimizer.iterations.numpy()) == 8         # 2 epochs of 4 steps
    config = model.get_compile_config()
    assert config["loss"] == {"cls": "sparse_categorical_crossentropy", "reg": "mse"}
    assert config["loss_weights"] == {"cls": 1.0, "reg": 0.5}
    assert config["metrics"] == {"cls": ["accuracy"]}
    vgg = load_model(keras_file(f"vgg_bn_{version}"))
    assert isinstance(vgg.optimizer, lamina.optimizers.Adam)
    assert float(vgg.optimizer.learning_rate.numpy()) == pytest.approx(0.005)
    assert vgg.get_compile_config()["metrics"] == ["accuracy"]
    ref = reference(keras_file(f"vgg_bn_{version}"))
    logs = vgg.evaluate(group(ref, "x"), np.argmax(ref["pred"], axis=1), verbose=0,
                        return_dict=True)
    assert logs["accuracy"] == 1.0


def test_keras2_optimizer_slots_are_the_files():
    path = keras_file("vgg_bn_k2")
    model = load_model(path)
    slots = {v.name: v.numpy() for v in model.optimizer.variables}
    with h5py.File(path, "r") as f:
        saved = f["optimizer_weights"]
        np.testing.assert_array_equal(slots["block1_conv1_kernel_momentum"],
                                      saved["Adam/m/block1_conv1/kernel:0"][()])
        np.testing.assert_array_equal(slots["predictions_bias_velocity"],
                                      saved["Adam/v/predictions/bias:0"][()])
        assert int(saved["iteration:0"][()]) == 10
    assert int(model.optimizer.iterations.numpy()) == 10


def test_keras3_optimizer_state_loads_by_position():
    path = keras_file("lstm_bi_k3")
    model = load_model(path)
    with h5py.File(path, "r") as f:
        names = [n.decode() if isinstance(n, bytes) else n
                 for n in f["optimizer_weights"].attrs["weight_names"]]
        saved = [f["optimizer_weights"][n][()] for n in names]
    variables = model.optimizer.variables
    assert [v.name for v in variables][:2] == ["iteration", "learning_rate"]
    assert len(variables) == len(saved) == 2 + 11      # 11 weights, one velocity each
    for variable, array in zip(variables, saved):
        np.testing.assert_array_equal(variable.numpy(), array.astype(variable.dtype))


def test_compile_false_loads_the_model_uncompiled():
    model = load_model(keras_file("dense_bn_k2"), compile=False)
    assert not getattr(model, "compiled", False)
    assert getattr(model, "optimizer", None) is None
    ref = reference(keras_file("dense_bn_k2"))
    np.testing.assert_allclose(model.predict(ref["x0"], verbose=0), ref["pred"], atol=1e-5)


def test_keras2_configs_become_keras3_configs():
    """What Lamina rebuilt from a Keras 2 file is what it rebuilds from Keras 3's file."""
    for name in ("dense_bn", "gru_text", "small_cnn"):
        k2 = load_model(keras_file(f"{name}_k2"), compile=False).get_config()
        k3 = load_model(keras_file(f"{name}_k3"), compile=False).get_config()
        for layer in k2["layers"]:
            if layer["class_name"] == "BatchNormalization":      # Keras 2 wrote [1]
                assert layer["config"]["axis"] == 1
                layer["config"]["axis"] = -1
        for config in (k2, k3):
            config.pop("name")
            for layer in config["layers"]:
                layer["config"].pop("name")
        assert k2 == k3
