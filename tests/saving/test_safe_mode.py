"""Safe mode: a file never makes Lamina run code. A ``Lambda`` layer whose function was a
Python lambda is refused by ``load_model(safe_mode=True)`` (the default); with
``safe_mode=False`` it comes back only with a function the caller passes by name, never
from the bytecode stored in the file."""
import base64
import json
import marshal
import zipfile

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.saving import SavingError, load_model
from lamina.registry import in_safe_mode

X = np.array([[1.0, -2.0, 3.0], [0.5, 0.0, -1.5]], "float32")


def times_two(x):
    return ops.multiply(x, 2.0)


@lamina.saving.register_keras_serializable(package="SafeModeTests")
def plus_one(x):
    return ops.add(x, 1.0)


def _lambda_model(function, name="lam", **kwargs):
    inputs = lamina.Input((3,))
    return lamina.Model(inputs, layers.Lambda(function, name=name, **kwargs)(inputs))


@pytest.fixture
def lambda_file(tmp_path):
    path = tmp_path / "lambda.keras"
    _lambda_model(lambda x: x * 2.0).save(path)
    return path


def _rewrite_config(path, edit):
    """The same .keras file with its config.json changed by ``edit(config)``."""
    with zipfile.ZipFile(path) as zf:
        entries = {name: zf.read(name) for name in zf.namelist()}
    config = json.loads(entries["config.json"])
    edit(config)
    entries["config.json"] = json.dumps(config).encode()
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in entries.items():
            zf.writestr(name, data)


def _lambda_entry(config):
    return next(e for e in config["config"]["layers"] if e["class_name"] == "Lambda")


def test_safe_mode_refuses_a_python_lambda_and_says_how_to_opt_in(lambda_file):
    with pytest.raises(SavingError, match=r"lambda\.keras'.*lam: the config's 'function' is a "
                                          r"Python lambda.*never runs code.*safe_mode=True"
                                          r".*refuses it"):
        load_model(lambda_file)
    with pytest.raises(SavingError, match=r"To opt in.*safe_mode=False and custom_objects="
                                          r"\{'lam': my_fn\}.*never unmarshals the stored "
                                          r"bytecode.*registered.*or passed by name"):
        load_model(lambda_file, safe_mode=True)


def test_custom_objects_alone_do_not_lift_safe_mode(lambda_file):
    with pytest.raises(SavingError, match=r"'function' is a Python lambda.*safe_mode=False"):
        load_model(lambda_file, custom_objects={"lam": times_two})


def test_unsafe_mode_takes_the_function_passed_under_the_layer_name(lambda_file):
    model = load_model(lambda_file, safe_mode=False, custom_objects={"lam": times_two})
    assert model.get_layer("lam").function is times_two
    np.testing.assert_array_equal(model.predict(X, verbose=0), X * 2.0)
    with lamina.saving.custom_object_scope({"lam": times_two}):
        model = load_model(lambda_file, safe_mode=False)
    np.testing.assert_array_equal(model.predict(X, verbose=0), X * 2.0)


def test_unsafe_mode_without_the_function_is_refused(lambda_file):
    with pytest.raises(SavingError, match=r"lam: the config's 'function' is a Python lambda "
                                          r"and safe_mode=False, but no function was passed "
                                          r"under 'lam'.*never unmarshals.*custom_objects="
                                          r"\{'lam': my_fn\}"):
        load_model(lambda_file, safe_mode=False)
    with pytest.raises(SavingError, match=r"no function was passed under 'lam'"):
        load_model(lambda_file, safe_mode=False, custom_objects={"lam": layers.Dense})


def test_a_builtin_of_the_layer_name_is_not_taken_for_the_function(tmp_path):
    path = tmp_path / "relu.keras"
    _lambda_model(lambda x: x * 2.0, name="relu").save(path)
    with pytest.raises(SavingError, match=r"no function was passed under 'relu'"):
        load_model(path, safe_mode=False)


def test_keras_bytecode_is_never_unmarshalled(lambda_file):
    hundred = base64.b64encode(marshal.dumps((lambda x: x * 100.0).__code__)).decode()
    _rewrite_config(lambda_file, lambda c: _lambda_entry(c)["config"]["function"][
        "config"].update(code=hundred))
    with pytest.raises(SavingError, match=r"never runs code"):
        load_model(lambda_file)
    model = load_model(lambda_file, safe_mode=False, custom_objects={"lam": times_two})
    np.testing.assert_array_equal(model.predict(X, verbose=0), X * 2.0)   # not X * 100
    _rewrite_config(lambda_file, lambda c: _lambda_entry(c)["config"]["function"][
        "config"].update(code="not base64, not marshal"))
    model = load_model(lambda_file, safe_mode=False, custom_objects={"lam": times_two})
    np.testing.assert_array_equal(model.predict(X, verbose=0), X * 2.0)


def test_output_shape_and_mask_lambdas_are_passed_as_layer_dot_argument(tmp_path):
    path = tmp_path / "shape.keras"
    _lambda_model(times_two, output_shape=lambda s: s).save(path)
    with pytest.raises(SavingError, match=r"'output_shape' is a Python lambda.*"
                                          r"custom_objects=\{'lam\.output_shape': my_fn\}"):
        load_model(path, custom_objects={"times_two": times_two})
    with pytest.raises(SavingError, match=r"no function was passed under 'lam\.output_shape'"):
        load_model(path, safe_mode=False, custom_objects={"times_two": times_two})

    def same_shape(shape):
        return shape
    model = load_model(path, safe_mode=False, custom_objects={
        "times_two": times_two, "lam.output_shape": same_shape})
    assert model.get_layer("lam")._output_shape is same_shape
    np.testing.assert_array_equal(model.predict(X, verbose=0), X * 2.0)


def test_named_functions_load_in_safe_mode(tmp_path):
    """As in Keras: a function stored by name is looked up, not run from the file."""
    path = tmp_path / "named.keras"
    _lambda_model(plus_one).save(path)
    np.testing.assert_array_equal(load_model(path).predict(X, verbose=0), X + 1.0)
    path = tmp_path / "unregistered.keras"
    _lambda_model(times_two).save(path)
    with pytest.raises(ValueError, match=r"unknown function 'times_two'.*custom_objects="
                                         r"\{'times_two': \.\.\.\}"):
        load_model(path)
    model = load_model(path, custom_objects={"times_two": times_two})
    np.testing.assert_array_equal(model.predict(X, verbose=0), X * 2.0)


def test_safe_mode_is_restored_after_load_model(lambda_file):
    assert in_safe_mode()
    load_model(lambda_file, safe_mode=False, custom_objects={"lam": times_two})
    assert in_safe_mode()
    with pytest.raises(SavingError):
        load_model(lambda_file, safe_mode=False)
    assert in_safe_mode()


def test_from_config_takes_safe_mode_explicitly():
    config = layers.Lambda(lambda x: x, name="lam").get_config()
    with pytest.raises(ValueError, match=r"lam: the config's 'function' is a Python lambda"):
        layers.Lambda.from_config(config)
    layer = layers.Lambda.from_config(config, custom_objects={"lam": times_two},
                                      safe_mode=False)
    np.testing.assert_array_equal(layer(X).numpy(), X * 2.0)


def test_safe_mode_must_be_a_bool(lambda_file):
    with pytest.raises(TypeError, match=r"load_model: argument 'safe_mode' must be True or "
                                        r"False; received 'no'"):
        load_model(lambda_file, safe_mode="no")


def _keras2_lambda_file(path):
    """A Keras 2 (tf.keras) .h5 file: every Python function of a Lambda is stored as
    ``[base64 marshal bytecode, defaults, closure]`` with ``function_type: "lambda"``."""
    h5py = pytest.importorskip("h5py")
    code = base64.b64encode(marshal.dumps((lambda x: x * 100.0).__code__)).decode()
    config = {"class_name": "Sequential", "config": {"name": "s", "layers": [
        {"class_name": "InputLayer", "config": {"batch_input_shape": [None, 3],
                                                "dtype": "float32", "name": "in"}},
        {"class_name": "Lambda", "config": {
            "name": "lam", "trainable": True, "dtype": "float32", "function": [code, None, None],
            "function_type": "lambda", "module": "__main__", "output_shape": None,
            "output_shape_type": "raw", "output_shape_module": None, "arguments": {}}}]}}
    with h5py.File(path, "w") as f:
        f.attrs["keras_version"], f.attrs["backend"] = "2.21.0", "tensorflow"
        f.attrs["model_config"] = json.dumps(config).encode()
        weights = f.create_group("model_weights")
        weights.attrs["layer_names"] = [b"lam"]
        weights.create_group("lam").attrs["weight_names"] = np.asarray([])


def test_a_keras_2_lambda_follows_the_same_rules(tmp_path):
    pytest.importorskip("lamina.saving.legacy_h5", reason="legacy .h5 loading not built")
    path = tmp_path / "k2.h5"
    _keras2_lambda_file(path)
    with pytest.raises(SavingError, match=r"k2\.h5'.*lam: the config's 'function' is a "
                                          r"Python lambda.*never runs code"):
        load_model(path)
    with pytest.raises(SavingError, match=r"no function was passed under 'lam'"):
        load_model(path, safe_mode=False)
    model = load_model(path, safe_mode=False, custom_objects={"lam": times_two})
    np.testing.assert_array_equal(model.predict(X, verbose=0), X * 2.0)   # not X * 100


def test_enable_unsafe_deserialization_acts_as_safe_mode_false(lambda_file):
    lamina.config.enable_unsafe_deserialization()
    try:
        model = load_model(lambda_file, custom_objects={"lam": times_two})
        np.testing.assert_array_equal(model.predict(X, verbose=0), X * 2.0)
    finally:
        lamina.settings._unsafe_deserialization = False
    with pytest.raises(SavingError, match=r"To opt in"):
        load_model(lambda_file, custom_objects={"lam": times_two})
