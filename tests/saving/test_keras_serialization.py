"""serialize_keras_object / deserialize_keras_object write and read exactly what Keras 3
writes: tests/fixtures/serialization/keras_serialized.json was written by Keras 3.15.1
(make_fixtures.py) for the objects of objects.py; Lamina must write the same JSON text."""
import json
import pathlib
import warnings

import numpy as np
import pytest

import lamina
from lamina import saving
from tests.fixtures.serialization.objects import build, custom_classes

FIXTURE = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "serialization" / \
    "keras_serialized.json"
KERAS = json.loads(FIXTURE.read_text())
lamina.backend.clear_session()        # auto-names (adam, adam_1, ...) start afresh, as in
OBJECTS = build(lamina)               # the Keras session that wrote the fixture


def _text(config) -> str:
    return json.dumps(config, sort_keys=True)


def test_the_fixture_covers_every_object():
    assert KERAS["keras_version"] == "3.15.1"
    assert sorted(KERAS["objects"]) == sorted(OBJECTS)


@pytest.mark.parametrize("name", sorted(OBJECTS))
def test_serialized_json_is_keras_text(name):
    assert _text(saving.serialize_keras_object(OBJECTS[name])) == _text(KERAS["objects"][name])


@pytest.mark.parametrize("name", sorted(OBJECTS))
def test_keras_written_config_deserializes_and_writes_back_the_same(name):
    obj = saving.deserialize_keras_object(KERAS["objects"][name])
    assert _text(saving.serialize_keras_object(obj)) == _text(KERAS["objects"][name])


def test_nested_objects_are_nested_dicts_and_from_config_rebuilds_them():
    config = lamina.layers.serialize(OBJECTS["layer_holding_layer"])
    assert config["module"] == "tests.fixtures.serialization.objects"
    assert config["registered_name"] == "Fixtures>Wrapper"
    assert config["config"]["reg"] == {"module": "keras.regularizers", "class_name": "L1L2",
                                       "config": {"l1": 0.1, "l2": 0.2},
                                       "registered_name": None}
    assert config["config"]["sub"]["class_name"] == "Dense"
    rebuilt = lamina.layers.deserialize(json.loads(json.dumps(config)))
    _, Wrapper, _ = custom_classes(lamina)
    assert isinstance(rebuilt, Wrapper) and isinstance(rebuilt.sub, lamina.layers.Dense)
    assert rebuilt.reg.l1 == 0.1 and rebuilt.reg.l2 == 0.2 and rebuilt.sub.name == "inner_dense"
    x = np.array([[1.0, 2.0, 3.0]], dtype="float32")
    rebuilt(x)
    rebuilt.sub.set_weights([np.ones((3, 2), "float32"), np.array([0.5, -0.5], "float32")])
    np.testing.assert_allclose(rebuilt(x).numpy(), [[6.5, 5.5]])


def test_a_class_defined_in_main_is_written_with_module_none():
    class Tagged(lamina.layers.Layer):
        pass
    Tagged.__module__ = "__main__"
    Tagged = saving.register_keras_serializable(package="mainpkg")(Tagged)
    config = saving.serialize_keras_object(Tagged(name="t"))
    assert config["module"] is None and config["registered_name"] == "mainpkg>Tagged"
    assert isinstance(saving.deserialize_keras_object(config), Tagged)


def test_an_unregistered_custom_object_is_written_under_its_class_name():
    class Loose:
        def get_config(self):
            return {"a": 1}
    config = saving.serialize_keras_object(Loose())
    assert config == {"module": __name__, "class_name": "Loose", "config": {"a": 1},
                      "registered_name": "Loose"}


FAMILIES = {
    "keras.layers": ("Dense", {"units": 2}, lamina.layers.Dense),
    "keras.regularizers": ("L1", {"l1": 0.5}, lamina.regularizers.L1),
    "keras.initializers": ("HeNormal", {"seed": 3}, lamina.initializers.HeNormal),
    "keras.constraints": ("MaxNorm", {"max_value": 2.0}, lamina.constraints.MaxNorm),
    "keras.losses": ("MeanSquaredError", {}, lamina.losses.MeanSquaredError),
    "keras.metrics": ("MeanSquaredError", {}, lamina.metrics.MeanSquaredError),
    "keras.optimizers": ("Adam", {"learning_rate": 0.01}, lamina.optimizers.Adam),
    "keras.callbacks": ("EarlyStopping", {"patience": 2}, lamina.callbacks.EarlyStopping),
    "keras": ("Sequential", {"layers": [], "name": "s"}, lamina.Sequential),
}


@pytest.mark.parametrize("module", sorted(FAMILIES))
def test_module_qualified_built_ins_resolve_through_their_family(module):
    class_name, inner, expected = FAMILIES[module]
    obj = saving.deserialize_keras_object({"module": module, "class_name": class_name,
                                           "config": inner, "registered_name": None})
    assert type(obj) is expected
    assert saving.serialize_keras_object(obj)["module"] == module


def test_loss_and_metric_of_the_same_name_are_told_apart_by_module():
    loss = saving.deserialize_keras_object({"module": "keras.losses",
                                            "class_name": "MeanSquaredError", "config": {}})
    metric = saving.deserialize_keras_object({"module": "keras.metrics",
                                              "class_name": "MeanSquaredError", "config": {}})
    assert isinstance(loss, lamina.losses.Loss) and isinstance(metric, lamina.metrics.Metric)


def test_a_function_dict_names_the_function():
    relu = saving.deserialize_keras_object({"module": "builtins", "class_name": "function",
                                            "config": "relu", "registered_name": "function"})
    assert relu is lamina.activations.relu


def test_special_values_round_trip_as_keras_writes_them():
    arr = np.arange(6, dtype="int32").reshape(2, 3)
    assert saving.serialize_keras_object(arr) == {
        "class_name": "__numpy__", "config": {"value": [[0, 1, 2], [3, 4, 5]],
                                              "dtype": "int32"}}
    assert saving.serialize_keras_object(np.float32(0.5)) == 0.5
    assert saving.serialize_keras_object(b"ab") == {"class_name": "__bytes__",
                                                    "config": {"value": "ab"}}
    assert saving.serialize_keras_object(slice(1, None, 2)) == {
        "class_name": "__slice__", "config": {"start": 1, "stop": None, "step": 2}}
    for value in (b"ab", slice(1, None, 2), Ellipsis):
        assert saving.deserialize_keras_object(saving.serialize_keras_object(value)) == value
    back = saving.deserialize_keras_object(saving.serialize_keras_object(arr))
    assert back.dtype == np.int32 and back.tolist() == arr.tolist()


def test_an_object_without_get_config_is_refused():
    with pytest.raises(TypeError, match=r"cannot serialize .*a class must implement "
                                        r"get_config\(\)"):
        saving.serialize_keras_object(object())


def test_get_config_must_return_a_dict():
    class Bad:
        def get_config(self):
            return [1]
    with pytest.raises(TypeError, match=r"get_config\(\) of Bad must return a dict; it "
                                        r"returned \[1\]"):
        saving.serialize_keras_object(Bad())


def test_a_lambda_is_written_with_a_warning_and_refused_in_both_modes():
    with pytest.warns(UserWarning, match="includes a `lambda`"):
        config = saving.serialize_keras_object(lambda x: x + 1)
    assert config["class_name"] == "__lambda__" and isinstance(config["config"]["value"], list)
    with pytest.raises(ValueError, match=r"safe mode refuses it \(safe_mode=True\)"):
        saving.deserialize_keras_object(config)
    with pytest.raises(ValueError, match=r"even with safe_mode=False"):
        saving.deserialize_keras_object(config, safe_mode=False)


def test_unknown_keyword_arguments_are_refused():
    with pytest.raises(TypeError, match=r"unexpected keyword arguments \['colour'\]"):
        saving.deserialize_keras_object("relu", colour=1)


def test_module_objects_keyword_is_searched():
    def mine(x):
        return x
    got = saving.deserialize_keras_object("mine", module_objects={"mine": mine})
    assert got is mine


def test_custom_object_scope_is_a_class_and_a_context_manager():
    assert isinstance(saving.CustomObjectScope, type)
    assert saving.custom_object_scope is saving.CustomObjectScope
    assert lamina.utils.CustomObjectScope is saving.CustomObjectScope
    assert lamina.utils.custom_object_scope is saving.CustomObjectScope

    def swish2(x):
        return x
    config = {"module": "builtins", "class_name": "function", "config": "swish2",
              "registered_name": "function"}
    with saving.CustomObjectScope({"swish2": swish2}) as scope:
        assert scope.custom_objects == {"swish2": swish2}
        assert saving.deserialize_keras_object(config) is swish2
    with pytest.raises(saving.UnknownObjectError, match="unknown object 'swish2'"):
        saving.deserialize_keras_object(config)
    with pytest.raises(TypeError, match="argument 'custom_objects' must be a dict"):
        saving.CustomObjectScope(["swish2"])


def test_registered_name_and_object_helpers():
    Scale, _, scaled_tanh = custom_classes(lamina)
    assert saving.get_registered_name(Scale) == "Fixtures>Scale"
    assert lamina.utils.get_registered_name(scaled_tanh) == "Fixtures>scaled_tanh"
    assert saving.get_registered_name(lamina.layers.Dense) == "Dense"
    assert lamina.utils.get_registered_object("Fixtures>Scale") is Scale
    assert lamina.utils.get_registered_object("nope", custom_objects={"nope": 3}) == 3
    assert lamina.utils.get_registered_object("nope2") is None


def test_warning_free_for_plain_objects():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        saving.serialize_keras_object(OBJECTS["dense"])


def test_safe_mode_false_reaches_a_nested_lambda_layer():
    def times_two(x):
        return x * 2.0
    config = {"module": "keras.layers", "class_name": "Lambda", "registered_name": None,
              "config": {"name": "lam", "function": {"class_name": "__lambda__",
                                                     "config": {"value": ["AAAA", None, None]}}}}
    with pytest.raises(ValueError, match=r"lam: the config's 'function' is a Python lambda.*"
                                         r"safe mode \(load_model's default"):
        saving.deserialize_keras_object(config, custom_objects={"lam": times_two})
    layer = saving.deserialize_keras_object(config, custom_objects={"lam": times_two},
                                            safe_mode=False)
    assert layer.function is times_two


def test_a_name_missing_from_its_family_is_not_taken_from_another_family():
    # keras.metrics has no Huber; Lamina's loss Huber must not stand in for it
    with pytest.raises(saving.UnknownObjectError, match=r"unknown object 'Huber'.*\(the "
                                                        r"config names it in keras.metrics\)"):
        saving.deserialize_keras_object({"module": "keras.metrics", "class_name": "Huber",
                                         "config": {}, "registered_name": None})
    assert isinstance(saving.deserialize_keras_object(
        {"module": "keras.losses", "class_name": "Huber", "config": {},
         "registered_name": None}), lamina.losses.Huber)
