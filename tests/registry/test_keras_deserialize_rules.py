"""deserialize_keras_object's rules for plain values and malformed configs (Keras 3.15's
serialization_lib: a plain string or dict is a value; a function config names a
function by a string; a class config is a dict; a built-in takes no registered name)."""
import numpy as np
import pytest

import lamina
from lamina.errors import ArgumentTypeError
from lamina.registry import UnknownObjectError, get_custom_objects
from lamina.saving import deserialize_keras_object, serialize_keras_object


def custom_fn(x):
    return x ** 2


@pytest.mark.parametrize("value", [
    "hello", b"hello", ["hello", 0, "world", 1.0, True], {"1": "hello", "2": 0, "3": True},
    {"1": "hello", "2": [True, False]}, slice(None, 20, 1)])
def test_plain_values_round_trip_as_keras(value):
    serialized = serialize_keras_object(value)
    restored = deserialize_keras_object(serialized)
    assert restored == value
    assert serialize_keras_object(restored) == serialized


def test_a_plain_dict_of_functions_deserializes_each_value():
    serialized = serialize_keras_object({"activation": custom_fn})
    assert serialized == {"activation": {"module": "builtins", "class_name": "function",
                                         "config": "custom_fn", "registered_name": "function"}}
    restored = deserialize_keras_object(serialized, custom_objects={"custom_fn": custom_fn})
    assert restored == {"activation": custom_fn}
    np.testing.assert_array_equal(restored["activation"](np.array([3.0])), [9.0])


def test_malformed_configs_raise_keras_types():
    with pytest.raises(TypeError, match="Expected 'config' to be a dict"):
        deserialize_keras_object({"class_name": "Dense", "config": [1, 2, 3]})
    with pytest.raises(TypeError, match="Expected 'config' to be a non-null str"):
        deserialize_keras_object({"class_name": "function", "config": ["not", "a", "str"]})
    with pytest.raises(ArgumentTypeError):                 # a ValueError too
        deserialize_keras_object({"class_name": "function", "config": None})


@pytest.mark.parametrize("bad", ["builtins.eval", "subprocess.Popen", "my_pkg>MyDense"])
def test_a_builtin_with_a_foreign_registered_name_is_refused(bad):
    with pytest.raises(ValueError, match=f"registered_name='{bad}', but 'Dense' resolved "
                                         f"to a Keras built-in"):
        deserialize_keras_object({"class_name": "Dense", "module": "keras.layers",
                                  "registered_name": bad, "config": {"units": 1}})
    with pytest.raises(UnknownObjectError, match="'relu' resolved to a Keras built-in"):
        deserialize_keras_object({"class_name": "function", "module": "builtins",
                                  "registered_name": "other", "config": "relu"})
    dense = deserialize_keras_object({"class_name": "Dense", "module": "keras.layers",
                                      "registered_name": "Dense", "config": {"units": 1}})
    assert isinstance(dense, lamina.layers.Dense) and dense.units == 1


def test_a_function_saved_without_its_package_finds_the_registered_one():
    # Keras <= 3.6 wrote "fn" for a function registered as "Pkg>fn"
    @lamina.saving.register_keras_serializable(package="serial_rules")
    def registered_fn(x):
        return x
    try:
        for name in ("registered_fn", "serial_rules>registered_fn"):
            assert deserialize_keras_object(
                {"module": "builtins", "class_name": "function", "config": name,
                 "registered_name": "function"}) is registered_fn
    finally:
        get_custom_objects().pop("serial_rules>registered_fn")


def test_registering_a_class_without_get_config_is_a_value_error():
    with pytest.raises(ValueError, match="Cannot register a class that does not have a "
                                         "get_config"):
        @lamina.saving.register_keras_serializable("Pkg", "NoConfig")
        class NoConfig:
            pass


def test_a_lambda_is_refused_naming_the_risk():
    with pytest.warns(UserWarning, match="lambda"):
        serialized = serialize_keras_object({"activation": lambda x: x ** 2})
    with pytest.raises(ValueError, match="arbitrary code execution"):
        deserialize_keras_object(serialized, safe_mode=True)
