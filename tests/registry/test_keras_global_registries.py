"""Keras's module-level registries, ``GLOBAL_CUSTOM_OBJECTS`` (name -> object) and
``GLOBAL_CUSTOM_NAMES`` (object -> name), as Keras's object_registration_test reads them."""
from lamina import saving
from lamina.registry import object_registration


def test_register_fills_both_global_registries():
    @saving.register_keras_serializable("TestPackage", "ParityName")
    class ParityThing:
        def get_config(self):
            return {}

    @saving.register_keras_serializable()
    def parity_fn():
        return 42

    names = object_registration.GLOBAL_CUSTOM_NAMES
    assert names[ParityThing] == "TestPackage>ParityName"
    assert names[parity_fn] == "Custom>parity_fn"
    assert object_registration.GLOBAL_CUSTOM_OBJECTS["TestPackage>ParityName"] is ParityThing
    assert object_registration.GLOBAL_CUSTOM_OBJECTS is saving.get_custom_objects()
    assert saving.get_registered_name(ParityThing) == names[ParityThing]


def test_builtins_are_not_in_global_custom_names():
    from lamina import layers
    assert layers.Dense not in object_registration.GLOBAL_CUSTOM_NAMES
