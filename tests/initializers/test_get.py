"""initializers.get / serialize / deserialize: every Keras name, configs as Keras writes
them, and the errors."""
import numpy as np
import pytest

from lamina import initializers
from lamina.errors import LaminaError
from lamina.initializers import (Constant, GlorotUniform, Identity, Initializer, Orthogonal,
                                 RandomNormal, RandomUniform, VarianceScaling, Zeros)
from lamina.registry import object_registration
from lamina.saving import UnknownObjectError, custom_object_scope

KERAS_NAMES = {
    "zeros": "Zeros", "ones": "Ones", "constant": "Constant", "identity": "Identity",
    "uniform": "RandomUniform", "random_uniform": "RandomUniform",
    "normal": "RandomNormal", "random_normal": "RandomNormal",
    "truncated_normal": "TruncatedNormal", "variance_scaling": "VarianceScaling",
    "glorot_uniform": "GlorotUniform", "glorot_normal": "GlorotNormal",
    "he_normal": "HeNormal", "he_uniform": "HeUniform", "lecun_normal": "LecunNormal",
    "lecun_uniform": "LecunUniform", "orthogonal": "Orthogonal",
}


@pytest.mark.parametrize("name", sorted(KERAS_NAMES))
def test_every_keras_name_resolves(name):
    init = initializers.get(name)
    assert type(init).__name__ == KERAS_NAMES[name]
    assert type(initializers.get(KERAS_NAMES[name])) is type(init)     # CamelCase too
    assert getattr(initializers, name) is type(init)                    # module alias


def test_every_table_entry_builds_and_initializes():
    for name, cls in initializers.ALL_OBJECTS.items():
        init = initializers.get(name)
        assert isinstance(init, cls)
        shape = (4, 1, 3) if cls is initializers.STFT else (3, 3)   # STFT: conv kernels
        assert init(shape).shape == shape, name


def test_legacy_class_names():
    assert isinstance(initializers.get("OrthogonalInitializer"), Orthogonal)
    assert isinstance(initializers.get("IdentityInitializer"), Identity)
    assert isinstance(initializers.get("one"), initializers.Ones)


def test_serialize_writes_keras_format():
    assert initializers.serialize(GlorotUniform(seed=3)) == {
        "module": "keras.initializers", "class_name": "GlorotUniform",
        "config": {"seed": 3, "input_axes": None, "output_axes": None},
        "registered_name": None}


ROUND_TRIP = [Zeros(), Constant(3.0), Constant([1.0, 2.0]), Identity(0.5),
              RandomUniform(-1.0, 1.0, seed=2), RandomNormal(1.0, 0.2, seed=3),
              initializers.TruncatedNormal(0.0, 0.3), VarianceScaling(2.0, "fan_out", "uniform"),
              GlorotUniform(seed=1), initializers.HeNormal(), Orthogonal(2.0, seed=4)]


@pytest.mark.parametrize("init", ROUND_TRIP, ids=lambda i: type(i).__name__)
def test_config_round_trip(init):
    rebuilt = initializers.get(initializers.serialize(init))
    assert type(rebuilt) is type(init)
    assert rebuilt.get_config() == init.get_config()
    assert initializers.deserialize(initializers.serialize(init)).get_config() == \
        init.get_config()


def test_configs_written_by_keras_load():
    keras3 = {"module": "keras.initializers", "class_name": "VarianceScaling",
              "config": {"seed": None, "scale": 2.0, "mode": "fan_avg",
                         "distribution": "untruncated_normal"}, "registered_name": None}
    init = initializers.get(keras3)
    assert (init.scale, init.mode, init.distribution) == (2.0, "fan_avg",
                                                          "untruncated_normal")
    keras2 = {"class_name": "GlorotUniform", "config": {"seed": None}}
    assert isinstance(initializers.get(keras2), GlorotUniform)
    tf1 = {"class_name": "RandomUniform",
           "config": {"minval": -0.1, "maxval": 0.1, "seed": None, "dtype": "float32"}}
    assert initializers.get(tf1).maxval == 0.1
    assert isinstance(initializers.get({"class_name": "OrthogonalInitializer",
                                        "config": {"gain": 1.0, "seed": None}}), Orthogonal)


def test_family_table_wins_over_other_families_with_the_same_bare_name(monkeypatch):
    class IdentityLayer:                     # e.g. a layer registered as "Identity"
        @classmethod
        def from_config(cls, config):
            return cls()
    monkeypatch.setitem(object_registration._BUILTINS, "Identity", IdentityLayer)
    assert isinstance(initializers.get({"class_name": "Identity", "config": {}}), Identity)


def test_none_instances_classes_and_callables():
    assert initializers.get(None) is None
    init = RandomUniform(seed=1)
    assert initializers.get(init) is init
    assert isinstance(initializers.get(Zeros), Zeros)

    def halves(shape, dtype=None):
        return Constant(0.5)(shape, dtype)
    assert initializers.get(halves) is halves


def test_users_registered_initializers():
    @object_registration.register_keras_serializable(package="InitTest")
    class Twos(Initializer):
        def __call__(self, shape, dtype=None):
            return Constant(2.0)(shape, dtype)

    config = initializers.serialize(Twos())
    assert config["registered_name"] == "InitTest>Twos"
    np.testing.assert_array_equal(initializers.get(config)((2,)).numpy(), [2.0, 2.0])
    assert isinstance(initializers.get("InitTest>Twos"), Twos)


def test_custom_objects_and_scopes():
    class Threes(Initializer):
        def __call__(self, shape, dtype=None):
            return Constant(3.0)(shape, dtype)

    config = {"class_name": "Threes", "config": {}}
    assert isinstance(initializers.deserialize(config, custom_objects={"Threes": Threes}),
                      Threes)
    with custom_object_scope({"Threes": Threes}):
        assert isinstance(initializers.get("Threes"), Threes)


def test_unknown_names_list_the_valid_ones():
    with pytest.raises(UnknownObjectError, match=r"initializers.get: unknown initializer "
                                                 r"'glorot' \(argument 'identifier'\); "
                                                 r"Lamina has \d+ built-in initializers"):
        initializers.get("glorot")
    assert issubclass(UnknownObjectError, ValueError)
    assert issubclass(UnknownObjectError, LaminaError)


def test_other_families_names_are_not_initializers():
    import lamina.regularizers  # noqa: F401  (registers "L1" in the global registry)
    with pytest.raises(UnknownObjectError, match="unknown initializer 'L1'"):
        initializers.get("L1")


def test_unknown_class_names_in_configs():
    with pytest.raises(UnknownObjectError, match=r"unknown initializer 'Foo'.*Lamina has "
                                                 r"\d+ built-in initializers"):
        initializers.get({"class_name": "Foo", "config": {}})


def test_uninterpretable_identifiers():
    with pytest.raises(TypeError, match="initializers.get: could not interpret initializer "
                                        "identifier 42: expected None, a name, a config dict, "
                                        "an instance or a callable"):
        initializers.get(42)
    with pytest.raises(TypeError, match="initializers.deserialize: argument 'config' must be "
                                        "a string or a dict"):
        initializers.deserialize(3.5)


def test_tensors_and_arrays_are_their_own_initial_values():
    # Keras 3: initializers.get(tensor or numpy array) gives a function returning those
    # values, cast to the dtype asked for (floatx() by default), for their shape only.
    from lamina import ops
    from lamina.errors import ShapeError
    values = np.arange(6, dtype="float64").reshape(2, 3) / 4
    init = initializers.get(values)
    out = init(shape=(2, 3))
    assert out.dtype == "float32"
    np.testing.assert_array_equal(out.numpy(), values.astype("float32"))
    assert init((2, 3), dtype="float64").dtype == "float64"
    tensor = ops.convert_to_tensor(np.array([[1, 2], [3, 4]], dtype="int64"))
    from_tensor = initializers.get(tensor)
    np.testing.assert_array_equal(from_tensor((2, 2), "int32").numpy(), [[1, 2], [3, 4]])
    assert initializers.get(np.float32(2.5))(()).numpy() == 2.5
    with pytest.raises(ShapeError, match=r"initializers.get: Expected `shape` to be \(2, 3\) "
                                         r"for a tensor given as initializer; received "
                                         r"shape=\(3, 2\)"):
        init(shape=(3, 2))
    # A Variable holds state, not initial values: as in Keras, it is not an initializer.
    import lamina
    with pytest.raises(TypeError, match="could not interpret initializer identifier"):
        initializers.get(lamina.Variable(np.ones(2)))


def test_a_layer_weight_initialized_from_an_array_copies_it():
    import lamina
    values = np.array([[0.5, -1.0], [2.0, 3.0]], dtype="float32")
    layer = lamina.layers.Dense(2, kernel_initializer=values, use_bias=False)
    layer.build((None, 2))
    values[0, 0] = 100.0
    np.testing.assert_array_equal(layer.kernel.numpy(), [[0.5, -1.0], [2.0, 3.0]])
