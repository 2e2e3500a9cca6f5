"""Damaged, wrong-kind and wrong-architecture legacy .h5 files raise typed errors that name
the file and what is wrong; never an h5py traceback, never a half-loaded model."""
import json
import shutil

import h5py
import pytest

import lamina
from lamina.models import load_model
from lamina.saving import (CorruptFileError, FileFormatError, SavingError,
                           UnknownObjectError, WeightMismatchError, load_weights)

from .helpers import dense_bn
from .legacy_files import keras_file, reference


@pytest.fixture
def copy(tmp_path):
    def make(name="dense_bn_k2", target="m.h5"):
        path = tmp_path / target
        shutil.copy(keras_file(name), path)
        return path
    return make


def edit_config(path, edit, key="model_config"):
    with h5py.File(path, "r+") as f:
        config = json.loads(f.attrs[key])
        edit(config)
        f.attrs[key] = json.dumps(config)


@pytest.mark.parametrize("content, message", [
    (b"", r"load_model: '.*bad\.h5' is empty \(0 bytes\)"),
    (b"not an hdf5 file at all", r"load_model: '.*bad\.h5' is not an HDF5 file \(23 bytes"),
    ("half", r"load_model: (cannot open|cannot read) '.*bad\.h5'"),
])
def test_damaged_files(tmp_path, content, message):
    path = tmp_path / "bad.h5"
    if content == "half":
        whole = keras_file("dense_bn_k2").read_bytes()
        content = whole[:len(whole) // 2]
    path.write_bytes(content)
    with pytest.raises(CorruptFileError, match=message):
        load_model(path)
    with pytest.raises(CorruptFileError, match=r"load_weights: .*'.*bad\.h5'"):
        load_weights(dense_bn(), path)


def test_hdf5_files_of_other_kinds(tmp_path):
    other = tmp_path / "other.h5"
    with h5py.File(other, "w") as f:
        f.create_dataset("data", data=[1, 2, 3])
    with pytest.raises(CorruptFileError, match=r"'.*other\.h5' is an HDF5 file but not a "
                                               r"Keras model: it has no 'model_config'"):
        load_model(other)
    with pytest.raises(CorruptFileError, match=r"no 'layer_names' attribute"):
        load_weights(dense_bn(), other)
    keras3_weights = tmp_path / "w.h5"
    shutil.copy(keras_file("dense_bn_k3").with_name("dense_bn_k3.weights.h5"), keras3_weights)
    with pytest.raises(CorruptFileError, match=r"looks like a Keras 3 weights file.*"
                                               r"'\*\.weights\.h5'"):
        load_weights(dense_bn(), keras3_weights)


def test_weights_only_file_given_to_load_model():
    path = keras_file("vgg_bn_k2").with_name("vgg_bn_k2_weights.h5")
    with pytest.raises(FileFormatError, match=r"load_model: '.*vgg_bn_k2_weights\.h5' holds "
                                              r"weights only.*model\.load_weights"):
        load_model(path)


def test_unknown_layer_class_says_how_to_register_it(copy):
    path = copy()

    def rename(config):
        config["config"]["layers"][1]["class_name"] = "FancyDense"
    edit_config(path, rename)
    with pytest.raises(UnknownObjectError, match=r"'.*m\.h5'.*unknown layer 'FancyDense'.*"
                                                 r"custom_objects=\{'FancyDense': \.\.\.\}.*"
                                                 r"register_keras_serializable"):
        load_model(path)
    model = load_model(path, custom_objects={"FancyDense": lamina.layers.Dense})
    ref = reference(keras_file("dense_bn_k2"))
    assert abs(model.predict(ref["x0"], verbose=0) - ref["pred"]).max() < 1e-5


def test_weights_that_do_not_fit_the_config(copy):
    path = copy()
    with h5py.File(path, "r+") as f:
        del f["model_weights/dense_1/dense_1/kernel:0"]
        f["model_weights/dense_1/dense_1/kernel:0"] = [[0.0] * 4] * 7
    with pytest.raises(WeightMismatchError, match=r"'.*m\.h5': layer 'dense_1', weight "
                                                  r"'dense_1/kernel': expected shape "
                                                  r"\(12, 4\), found \(7, 4\)"):
        load_model(path)


def test_bad_datasets_and_attributes(copy):
    missing = copy(target="missing.h5")
    with h5py.File(missing, "r+") as f:
        del f["model_weights/dense/dense/bias:0"]
    with pytest.raises(CorruptFileError, match=r"missing\.h5': layer 'dense' lists weight "
                                               r"'dense/bias:0' but the file has no such"):
        load_model(missing)
    text = copy(target="text.h5")
    with h5py.File(text, "r+") as f:
        del f["model_weights/dense/dense/bias:0"]
        f["model_weights/dense/dense/bias:0"] = ["a"] * 12
    with pytest.raises(CorruptFileError, match=r"weight 'dense/bias:0' of layer 'dense' holds "
                                               r"object values; expected numbers"):
        load_model(text)
    bad_json = copy(target="json.h5")
    with h5py.File(bad_json, "r+") as f:
        f.attrs["model_config"] = "{not json"
    with pytest.raises(CorruptFileError, match=r"json\.h5': the 'model_config' attribute is "
                                               r"not valid JSON"):
        load_model(bad_json)


def test_config_the_layers_refuse(copy):
    path = copy("gru_text_k2")

    def time_major(config):
        config["config"]["layers"][2]["config"]["time_major"] = True
    edit_config(path, time_major)
    with pytest.raises(SavingError, match=r"cannot rebuild the model saved in '.*m\.h5': "
                                          r"ValueError: gru: argument 'time_major'"):
        load_model(path)


def test_keras2_python_lambda_is_refused_in_safe_mode(copy):
    path = copy()

    def add_lambda(config):
        config["config"]["layers"].insert(2, {"class_name": "Lambda", "config": {
            "name": "double", "trainable": True, "dtype": "float32",
            "function": ["4wEAAAAAAAAA", None, None], "function_type": "lambda",
            "module": "__main__", "output_shape": None, "output_shape_type": "raw",
            "output_shape_module": None, "arguments": {}}})
    edit_config(path, add_lambda)
    with pytest.raises(SavingError, match=r"m\.h5'.*double: the config's 'function' is a "
                                          r"Python lambda.*safe_mode=False"):
        load_model(path)
    model = load_model(path, safe_mode=False, custom_objects={"double": lambda x: x * 2.0})
    assert model.get_layer("double").function(3.0) == 6.0


def test_bad_training_config(copy):
    path = copy()

    def unknown_loss(config):
        config["loss"] = "no_such_loss"
    edit_config(path, unknown_loss, key="training_config")
    with pytest.raises(UnknownObjectError, match=r"m\.h5'.*no_such_loss.*compile=False"):
        load_model(path)
    assert load_model(path, compile=False).built


def test_structure_errors(copy):
    array_config = copy(target="array.h5")
    with h5py.File(array_config, "r+") as f:
        f.attrs["model_config"] = "[1, 2]"
    with pytest.raises(CorruptFileError, match=r"array\.h5': the 'model_config' attribute "
                                               r"should be a JSON object; found '\[1, 2\]'"):
        load_model(array_config)
    bad_training = copy(target="training.h5")
    with h5py.File(bad_training, "r+") as f:
        f.attrs["training_config"] = '{"optimizer_config": "adam", "loss": "mse"}'
        del f["optimizer_weights"]
    assert isinstance(load_model(bad_training).optimizer, lamina.optimizers.Adam)
    with h5py.File(bad_training, "r+") as f:
        f.attrs["training_config"] = '{"loss": "mse", "loss_weights": "heavy"}'
    with pytest.raises(SavingError, match=r"training\.h5'.*compile=False"):
        load_model(bad_training)
    missing_group = copy(target="group.h5")
    with h5py.File(missing_group, "r+") as f:
        del f["model_weights/dense_1"]
    with pytest.raises(CorruptFileError, match=r"group\.h5': layer_names lists 'dense_1' but "
                                               r"the file has no group "
                                               r"'/model_weights/dense_1'"):
        load_model(missing_group)


def test_weight_count_mismatch_names_both_lists(copy):
    path = copy()
    with h5py.File(path, "r+") as f:
        group = f["model_weights/batch_normalization"]
        group.attrs["weight_names"] = list(group.attrs["weight_names"])[:2]
    with pytest.raises(WeightMismatchError, match=r"layer 'batch_normalization' has 4 weights "
                                                  r"\[.*moving_variance'\]; the file's layer "
                                                  r"'batch_normalization' has 2"):
        load_model(path)


def test_keras2_nodes_must_be_lists():
    from lamina.saving.legacy_config import LegacyConfigError, convert_model_config
    config = {"class_name": "Functional", "config": {"name": "m", "layers": [
        {"class_name": "Dense", "config": {"units": 2}, "name": "d",
         "inbound_nodes": [[["x", 0, 0, {}]], "broken"]}],
        "input_layers": [], "output_layers": []}}
    with pytest.raises(LegacyConfigError, match=r"inbound node must be a list of \[layer, "
                                                r"node, tensor, kwargs\] entries; received "
                                                r"'broken'"):
        convert_model_config(config)
