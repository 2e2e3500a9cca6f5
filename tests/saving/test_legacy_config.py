"""Keras 2 configs (tf.keras, older multi-backend Keras) become configs Lamina builds, and
Keras 2's training configs and optimizer state names become Lamina's."""
import json
import shutil
import warnings

import h5py
import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.layers import deserialize
from lamina.models import load_model
from lamina.saving.legacy_config import LegacyConfigError, convert_model_config
from lamina.saving.legacy_training_config import convert_training_config

from .legacy_files import keras_file


def dense(name, units, **config):
    return {"class_name": "Dense", "config": {"name": name, "units": units, **config}}


def test_oldest_sequential_and_model_spellings():
    old = {"class_name": "Sequential", "config": [
        dense("d1", 3, batch_input_shape=[None, 4], dtype="float32",
              kernel_initializer={"class_name": "VarianceScaling", "config": {
                  "scale": 1.0, "mode": "fan_avg", "distribution": "normal", "seed": None,
                  "dtype": "float32"}}),
        {"class_name": "LeakyReLU", "config": {"name": "lrelu", "alpha": 0.2}},
        {"class_name": "keras.layers.Dense", "module": "tf_keras.src.layers",
         "config": {"name": "d2", "units": 2,
                    "dtype": {"class_name": "Policy", "config": {"name": "float32"}}}}]}
    with warnings.catch_warnings():
        warnings.simplefilter("error")                  # no 'alpha' deprecation warning
        model = deserialize(convert_model_config(old))
    assert [layer.name for layer in model.layers] == ["d1", "lrelu", "d2"]
    assert model.built and model.layers[1].negative_slope == pytest.approx(0.2)
    assert model.layers[0].kernel_initializer.distribution == "truncated_normal"
    assert model.predict(np.ones((2, 4), "float32"), verbose=0).shape == (2, 2)
    functional = convert_model_config({"class_name": "Model", "config": {
        "name": "m", "layers": [
            {"class_name": "InputLayer", "name": "x", "inbound_nodes": [],
             "config": {"batch_input_shape": [None, 4], "dtype": "float32", "ragged": False,
                        "sparse": False, "name": "x"}},
            {**dense("d", 2), "name": "d", "inbound_nodes": [[["x", 0, 0, {}]]]}],
        "input_layers": [["x", 0, 0]], "output_layers": [["d", 0, 0]]}})
    assert functional["class_name"] == "Functional"
    assert functional["config"]["layers"][0]["config"]["batch_shape"] == [None, 4]
    assert deserialize(functional).output_shape == (None, 2)


def test_keras2_call_kwargs_hold_tensors():
    """Keras 2 moves positional arguments after the first into kwargs: `mha(q, v)` is
    stored as called on `q` with kwargs `{"value": ["v", 0, 0]}`."""
    mha = layers.MultiHeadAttention(num_heads=2, key_dim=3, name="mha")
    config = {"class_name": "Functional", "config": {"name": "m", "layers": [
        {"class_name": "InputLayer", "name": name, "inbound_nodes": [],
         "config": {"batch_input_shape": [None, steps, 4], "dtype": "float32", "name": name}}
        for name, steps in (("q", 5), ("v", 7))] + [
        {"class_name": "MultiHeadAttention", "config": mha.get_config(), "name": "mha",
         "inbound_nodes": [[["q", 0, 0, {"value": ["v", 0, 0]}]]]}],
        "input_layers": [["q", 0, 0], ["v", 0, 0]], "output_layers": [["mha", 0, 0]]}}
    model = deserialize(convert_model_config(config))
    out = model.predict([np.ones((1, 5, 4), "float32"), np.ones((1, 7, 4), "float32")],
                        verbose=0)
    assert out.shape == (1, 5, 4)
    with pytest.raises(LegacyConfigError, match=r"inbound node entry must be \[layer, node, "
                                                r"tensor\(, kwargs\)\]; received 'q'"):
        convert_model_config({**config, "config": {**config["config"], "layers": [
            {**config["config"]["layers"][2], "inbound_nodes": [["q"]]}]}})
    with pytest.raises(LegacyConfigError, match=r"model config must be a dict with a "
                                                r"'class_name'"):
        convert_model_config(["Sequential"])


def test_keras2_rnn_cells_and_implementation_keys():
    cell = {"class_name": "LSTMCell", "config": {"name": "c", "units": 3, "implementation": 1,
                                                 "dtype": "float32"}}
    rnn = {"class_name": "RNN", "config": {
        "name": "rnn", "time_major": False, "return_sequences": False,
        "batch_input_shape": [None, 6, 2], "cell": {"class_name": "StackedRNNCells",
                                                    "config": {"cells": [cell, cell]}}}}
    model = deserialize(convert_model_config({"class_name": "Sequential", "config": {
        "name": "s", "layers": [rnn]}}))
    assert [tuple(w.shape) for w in model.weights] == [(2, 12), (3, 12), (12,), (3, 12),
                                                       (3, 12), (12,)]


def test_keras2_training_config():
    training = {"loss": {"class_name": "SparseCategoricalCrossentropy", "config": {
                    "reduction": "auto", "name": "sparse_categorical_crossentropy",
                    "from_logits": True}},
                "metrics": [[{"class_name": "MeanMetricWrapper", "config": {
                    "name": "out_acc", "dtype": "float32", "fn": "categorical_accuracy"}},
                    {"class_name": "MeanMetricWrapper", "config": {
                        "name": "out_mae", "fn": "mean_absolute_error"}}]],
                "weighted_metrics": None, "loss_weights": None,
                "optimizer_config": {"class_name": "Adam", "config": {
                    "name": "Adam", "lr": 0.01, "decay": 0.1, "beta_1": 0.9}}}
    with pytest.warns(UserWarning, match=r"Adam optimizer has decay=0\.1.*ignored"):
        config = convert_training_config(training, ["out"])
    assert config["optimizer"] == {"class_name": "Adam", "config": {
        "name": "Adam", "learning_rate": 0.01, "beta_1": 0.9}}
    assert config["loss"]["config"]["reduction"] == "sum_over_batch_size"
    assert config["metrics"] == ["accuracy", "mae"]          # the names Keras logs
    model = lamina.Sequential([lamina.Input((3,)), layers.Dense(2, name="out")])
    model.compile_from_config(config)
    assert float(model.optimizer.learning_rate.numpy()) == pytest.approx(0.01)
    with pytest.raises(LegacyConfigError, match=r"training_config must be a JSON object"):
        convert_training_config(["adam"], ["out"])


def test_legacy_tf_keras_optimizer_state_is_paired_by_name(tmp_path):
    """tf.keras's legacy optimizers store `Adam/iter:0`, hyperparameters, then every `m`
    slot before every `v` slot (`Adam/d1/kernel/m:0`): pairing by position would be wrong."""
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(4, name="d1"),
                               layers.Dense(4, name="d2")])
    model.compile(optimizer="adam", loss="mse")
    model.fit(np.random.rand(8, 4), np.random.rand(8, 4), epochs=2, verbose=0)
    path = tmp_path / "legacy_opt.h5"
    model.save(path)
    state = {v.name: v.numpy() for v in model.optimizer.variables}
    with h5py.File(path, "r+") as f:
        del f["optimizer_weights"]
        group = f.create_group("optimizer_weights")
        names = ["Adam/iter:0", "Adam/beta_1:0", "Adam/learning_rate:0"]
        group["Adam/iter:0"] = np.int64(state["iteration"])
        group["Adam/beta_1:0"] = np.float32(0.9)
        group["Adam/learning_rate:0"] = np.float32(0.001)
        for slot, suffix in (("m", "momentum"), ("v", "velocity")):
            for weight in ("d1/kernel", "d1/bias", "d2/kernel", "d2/bias"):
                names.append(f"Adam/{weight}/{slot}:0")
                group[names[-1]] = state[f"{weight.replace('/', '_')}_{suffix}"]
        group.attrs["weight_names"] = names
    back = load_model(path)
    for variable in back.optimizer.variables:
        np.testing.assert_array_equal(variable.numpy(), state[variable.name])


def test_optimizer_state_that_does_not_fit_is_skipped(tmp_path):
    path = tmp_path / "sgd.h5"
    shutil.copy(keras_file("dense_bn_k3"), path)
    with h5py.File(path, "r+") as f:
        training = json.loads(f.attrs["training_config"])
        training["optimizer_config"] = {"class_name": "SGD", "config": {"momentum": 0.5}}
        f.attrs["training_config"] = json.dumps(training)
    with pytest.warns(UserWarning, match=r"Skipping variable loading for optimizer "
                                         r"'sgd(_\d+)?': the state saved in '.*sgd\.h5' "
                                         r"\(14 variables"):
        model = load_model(path)
    assert int(model.optimizer.iterations.numpy()) == 0
    assert isinstance(model.optimizer, lamina.optimizers.SGD)
