"""lamina.registry: families register their own tables, configs resolve through them, the
tensor type and safe mode are registered from outside, and the registry imports nothing
above the ground (errors, dtypes, tree; not config, which loads the backend)."""
import ast
import sys

import numpy as np
import pytest

import lamina
from lamina import losses, metrics, ops, registry
from lamina.registry import UnknownObjectError, families, special_values
from tests import import_graph

ALLOWED = ("lamina.errors", "lamina.dtypes", "lamina.tree")
FAMILIES = {"keras.activations": lamina.activations, "keras.callbacks": lamina.callbacks,
            "keras.constraints": lamina.constraints, "keras.initializers": lamina.initializers,
            "keras.losses": losses, "keras.metrics": metrics,
            "keras.optimizers": lamina.optimizers, "keras.regularizers": lamina.regularizers}


@pytest.fixture
def own_families(monkeypatch):
    """Families registered in a test are gone after it."""
    monkeypatch.setattr(families, "_FAMILIES", dict(families._FAMILIES))


class Widget:
    def __init__(self, size=1):
        self.size = size

    def get_config(self):
        return {"size": self.size}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


# ------------------------------------------------------------------ families register
def test_every_family_registers_its_own_table():
    for module, package in FAMILIES.items():
        assert registry.family_table(module) is package.ALL_OBJECTS, module
        assert registry.is_strict_family(module), module
    layers = registry.family_table("keras.layers")
    assert layers["Dense"] is lamina.layers.Dense and layers["Sequential"] is lamina.Sequential
    for module in ("keras", "keras.models", "keras.src.models.functional"):
        assert registry.lookup_in_family(module, "Functional") is lamina.Functional
        assert not registry.is_strict_family(module)
    schedules = lamina.optimizers.schedules
    assert registry.lookup_in_family("keras.optimizers.schedules", "CosineDecay") is \
        schedules.CosineDecay
    assert registry.lookup_in_family("keras.optimizers.schedules.learning_rate_schedule",
                                     "ExponentialDecay") is schedules.ExponentialDecay
    assert set(FAMILIES) <= set(registry.registered_families())


@pytest.mark.parametrize("module, family", [("keras.losses", losses),
                                            ("keras.metrics", metrics)])
def test_the_module_picks_the_family_of_a_shared_name(module, family):
    config = {"module": module, "class_name": "MeanSquaredError",
              "config": {"name": "mse_of_" + family.__name__.split(".")[-1]},
              "registered_name": None}
    obj = registry.deserialize_keras_object(config)
    assert type(obj) is family.MeanSquaredError
    assert obj.name == config["config"]["name"]
    assert lamina.saving.deserialize_keras_object(config).__class__ is family.MeanSquaredError


def test_a_strict_family_refuses_another_familys_builtin():
    config = {"module": "keras.losses", "class_name": "Dense", "config": {"units": 2},
              "registered_name": None}
    with pytest.raises(UnknownObjectError, match=r"unknown object 'Dense'.*\(the config "
                                                 r"names it in keras\.losses\)"):
        registry.deserialize_keras_object(config)
    # without a module, the registry's built-in is found
    assert type(registry.deserialize_keras_object({**config, "module": None})) is \
        lamina.layers.Dense


def test_a_function_resolves_through_the_family_of_its_module():
    config = {"module": "keras.losses", "class_name": "function", "config": "mse",
              "registered_name": "function"}
    assert registry.deserialize_keras_object(config) is losses.mean_squared_error


# ------------------------------------------------------------------ a family of one's own
def test_a_custom_family_resolves_its_names(own_families):
    table = {"Widget": Widget}
    registry.register_family("myorg.widgets", lambda: table)
    config = {"module": "myorg.widgets", "class_name": "Widget", "config": {"size": 3},
              "registered_name": None}
    obj = registry.deserialize_keras_object(config)
    assert type(obj) is Widget and obj.size == 3
    assert registry.family_table("myorg.widgets") is table
    table["Gadget"] = Widget            # the getter is read at every lookup
    assert registry.lookup_in_family("myorg.widgets", "Gadget") is Widget
    with pytest.raises(UnknownObjectError, match=r"\(the config names it in myorg\.widgets\)"):
        registry.deserialize_keras_object({**config, "class_name": "Dense"})


def test_a_lenient_family_falls_through_to_the_registry(own_families):
    registry.register_family("myorg.lenient", lambda: {}, strict=False)
    config = {"module": "myorg.lenient", "class_name": "Dense", "config": {"units": 2},
              "registered_name": None}
    assert type(registry.deserialize_keras_object(config)) is lamina.layers.Dense


def test_submodules_and_registering_again(own_families):
    registry.register_family("myorg.parts", lambda: {"Widget": Widget}, submodules=True)
    assert registry.lookup_in_family("myorg.parts.v2", "Widget") is Widget
    assert registry.lookup_in_family("myorg.other", "Widget") is None
    registry.register_family("myorg.parts", lambda: {})
    assert registry.lookup_in_family("myorg.parts", "Widget") is None
    assert registry.lookup_in_family("myorg.parts.v2", "Widget") is None   # no submodules
    assert registry.family_table(None) is None and registry.family_table(["x"]) is None
    assert not registry.is_strict_family(["keras.losses"])


def test_users_objects_beat_the_family(own_families):
    registry.register_family("myorg.widgets", lambda: {"Widget": Widget})

    class Mine(Widget):
        pass
    config = {"module": "myorg.widgets", "class_name": "Widget", "config": {},
              "registered_name": None}
    assert type(registry.deserialize_keras_object(config, {"Widget": Mine})) is Mine
    with registry.custom_object_scope({"Widget": Mine}):
        assert type(registry.deserialize_keras_object(config)) is Mine


@pytest.mark.parametrize("args, message", [
    (("", dict), r"argument 'keras_module' must be a non-empty str"),
    ((None, dict), r"argument 'keras_module' must be a non-empty str .* received None"),
    (("myorg.x", {"Widget": Widget}), r"argument 'table_getter' must be a callable .* "
                                      r"received dict"),
])
def test_register_family_checks_its_arguments(own_families, args, message):
    with pytest.raises(TypeError, match=message):
        registry.register_family(*args)


# ------------------------------------------------------------------ tensors and safe mode
def test_tensors_round_trip_through_the_registered_tensor_type():
    config = registry.serialize_keras_object(ops.convert_to_tensor(np.arange(3.0)))
    assert config == {"class_name": "__tensor__",
                      "config": {"value": [0.0, 1.0, 2.0], "dtype": "float64"}}
    back = registry.deserialize_keras_object(config)
    assert isinstance(back, lamina.Tensor)
    np.testing.assert_array_equal(ops.convert_to_numpy(back), np.arange(3.0))


def test_a_tensor_without_a_registered_type_is_refused(monkeypatch):
    monkeypatch.setattr(special_values, "_TENSOR", [])
    config = {"class_name": "__tensor__", "config": {"value": [1.0], "dtype": "float32"}}
    with pytest.raises(UnknownObjectError, match=r"cannot deserialize a tensor \(object\): "
                                                 r"no tensor type is registered"):
        registry.deserialize_keras_object(config)


@pytest.mark.parametrize("args, message", [
    ((1, np.asarray, np.asarray), r"argument 'tensor_type' must be a class; received 1"),
    ((Widget, None, np.asarray), r"argument 'to_numpy' must be callable; received NoneType"),
    ((Widget, np.asarray, 3), r"argument 'from_numpy' must be callable; received int"),
])
def test_register_tensor_type_checks_its_arguments(monkeypatch, args, message):
    monkeypatch.setattr(special_values, "_TENSOR", list(special_values._TENSOR))
    with pytest.raises(TypeError, match=message):
        registry.register_tensor_type(*args)


def test_safe_mode_lives_in_the_registry():
    assert registry.in_safe_mode()
    with registry.safe_mode_scope(False):
        assert not registry.in_safe_mode()
        with registry.safe_mode_scope(True):
            assert registry.in_safe_mode()
        assert not registry.in_safe_mode()
    assert registry.in_safe_mode()
    assert lamina.saving.saving_api.safe_mode_scope is registry.safe_mode_scope


def test_the_public_names_stay_where_keras_has_them():
    for name in ("register_keras_serializable", "get_registered_name", "get_registered_object",
                 "get_custom_objects", "custom_object_scope", "CustomObjectScope",
                 "serialize_keras_object", "deserialize_keras_object"):
        assert getattr(lamina.saving, name) is getattr(registry, name), name
        assert getattr(lamina.utils, name) is getattr(registry, name), name
    assert lamina.saving.UnknownObjectError is UnknownObjectError


# ------------------------------------------------------------------ the layering
def _offenders(modules):
    graph = import_graph.imports(modules)
    found = []
    for name, (top, lazy) in graph.items():
        found += [(name, "function-level", target) for _, target in lazy]
        found += [(name, "module-level", target) for target in top
                  if not target.startswith("lamina.registry")
                  and not any(target == a or target.startswith(a + ".") for a in ALLOWED)]
    return found


def _outside_imports(modules):
    """Non-Lamina imports other than numpy and the standard library."""
    found = []
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                roots = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                roots = [node.module.split(".")[0]]
            else:
                continue
            found += [(name, r) for r in roots if r not in sys.stdlib_module_names
                      and r not in ("numpy", "lamina", "__future__")]
    return found


def test_the_registry_imports_only_the_ground():
    modules = {name: path for name, path in import_graph.all_modules().items()
               if name == "lamina.registry" or name.startswith("lamina.registry.")}
    assert len(modules) >= 5, sorted(modules)
    assert _offenders(modules) == []
    assert _outside_imports(modules) == []


def test_the_layering_check_can_fail(tmp_path):
    fake = tmp_path / "fake.py"
    fake.write_text("from ..losses import ALL_OBJECTS\nfrom ..errors import LaminaError\n"
                    "import scipy\n\ndef f():\n    from . import families\n")
    modules = {"lamina.registry.fake": fake}
    assert sorted(_offenders(modules)) == [
        ("lamina.registry.fake", "function-level", "lamina.registry"),
        ("lamina.registry.fake", "module-level", "lamina.losses")]
    assert _outside_imports(modules) == [("lamina.registry.fake", "scipy")]
