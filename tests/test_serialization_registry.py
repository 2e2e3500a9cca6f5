"""The registry of names: built-ins, register_keras_serializable, custom_object_scope."""
import pytest

import lamina
from lamina import layers, saving


@saving.register_keras_serializable(package="Tests")
class Doubler(layers.Layer):
    def call(self, x):
        return x * 2.0


class Unregistered(layers.Layer):
    def call(self, x):
        return x


def test_builtin_layers_round_trip_through_serialize():
    config = saving.serialize_keras_object(layers.Dense(3, name="d"))
    assert config["module"] == "keras.layers" and config["class_name"] == "Dense"
    assert config["registered_name"] is None
    layer = saving.deserialize_keras_object(config)
    assert isinstance(layer, layers.Dense) and layer.units == 3


def test_registered_class_uses_package_name():
    config = saving.serialize_keras_object(Doubler(name="dbl"))
    assert config["registered_name"] == "Tests>Doubler"
    assert isinstance(saving.deserialize_keras_object(config), Doubler)


def test_unknown_class_error_says_how_to_register():
    config = saving.serialize_keras_object(Unregistered(name="u"))
    with pytest.raises(saving.UnknownObjectError,
                       match=r"unknown layer 'Unregistered'.*custom_objects=.*"
                             r"register_keras_serializable"):
        saving.deserialize_keras_object(config, kind="layer")


def test_custom_objects_and_scope_resolve_unregistered_classes():
    config = saving.serialize_keras_object(Unregistered(name="u2"))
    assert isinstance(saving.deserialize_keras_object(
        config, custom_objects={"Unregistered": Unregistered}), Unregistered)
    with saving.custom_object_scope({"Unregistered": Unregistered}):
        assert isinstance(saving.deserialize_keras_object(config), Unregistered)


def test_lambda_bytecode_is_never_run():
    config = {"class_name": "__lambda__", "config": {"code": "AAAA"}}
    with pytest.raises(saving.UnknownObjectError, match=r"never runs from a file"):
        saving.deserialize_keras_object(config)


def test_register_rejects_bad_package():
    with pytest.raises(ValueError, match=r"without '>'"):
        saving.register_keras_serializable(package="a>b")


def test_model_from_config_with_custom_layer_in_scope():
    x = lamina.Input((2,))
    model = lamina.Model(x, Unregistered(name="un")(x))
    config = model.get_config()
    with pytest.raises(saving.UnknownObjectError):
        lamina.Model.from_config(config)
    with saving.custom_object_scope({"Unregistered": Unregistered}):
        clone = lamina.Model.from_config(config)
    assert clone.get_layer("un").__class__ is Unregistered
