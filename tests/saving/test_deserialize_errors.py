"""Deserialization errors Keras 3 raises as TypeError: a registered class without
``from_config``, and a ``from_config`` that fails because nested objects of a
``get_config`` were not deserialized."""
import pytest

import lamina
from lamina import layers


def setup_function():
    lamina.backend.clear_session(free_memory=False)


@lamina.saving.register_keras_serializable(package="DeserializeErrors")
class GrowthFactor:
    """Registered and has get_config, but no from_config."""

    def __init__(self, factor):
        self.factor = factor

    def __call__(self, inputs):
        return inputs * self.factor

    def get_config(self):
        return {"factor": self.factor}


@lamina.saving.register_keras_serializable(package="DeserializeErrors")
class Holder(layers.Layer):
    """Puts a layer in its config and never deserializes it."""

    def __init__(self, inner, **kwargs):
        super().__init__(**kwargs)
        self.inner = inner

    def get_config(self):
        return {**super().get_config(), "inner": self.inner}

    def call(self, x):
        return self.inner(x)


def test_a_class_without_from_config_is_a_type_error(tmp_path):
    inputs = lamina.Input((4, 4))
    model = lamina.Model(inputs, layers.Dense(1, activation=GrowthFactor(0.5))(inputs))
    model.save(tmp_path / "m.keras")
    with pytest.raises(TypeError, match=r"Unable to reconstruct an instance of "
                                        r"'GrowthFactor' because the class is missing a "
                                        r"`from_config\(\)` method"):
        lamina.saving.load_model(tmp_path / "m.keras")


def test_a_nested_object_left_as_a_config_is_a_type_error(tmp_path):
    inputs = lamina.Input((8,))
    model = lamina.Model(inputs, Holder(layers.Dense(2))(inputs))
    model.save(tmp_path / "m.keras")
    with pytest.raises(TypeError, match=r"could not be deserialized properly \(TypeError: "
                                        r"'dict' object is not callable\).*explicitly "
                                        r"deserialized in the model's `from_config\(\)`"):
        lamina.saving.load_model(tmp_path / "m.keras")
