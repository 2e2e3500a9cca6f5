"""The saved object graph's walk (lamina/saving/object_graph.py) on deep models (issue
21): each class's attributes are listed once per walk, not once per object, and a class's
plain methods are left out without being looked up; the paths found are unchanged, also
where an instance attribute shadows a method or a class customizes ``dir()``."""
import lamina
from lamina import layers
from lamina.saving import object_graph


class _Shadowing(layers.Layer):
    """Holds a layer in an instance attribute named like one of its class's methods."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.inner = layers.Dense(2, name="inner")
        self.helper = layers.Dense(2, name="in_helper")     # shadows the method below

    def helper(self):                   # noqa: F811 - the instance attribute wins
        return None

    def build(self, input_shape):
        self.inner.build(input_shape)
        self.__dict__["helper"].build(input_shape)

    def call(self, x):
        return self.inner(x)


class _OwnDir(layers.Layer):
    """A class that customizes dir(): only the names it lists are walked."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.hidden = layers.Dense(2, name="hidden")
        self.shown = layers.Dense(2, name="shown")

    def __dir__(self):
        return [name for name in super().__dir__() if name != "hidden"]

    def call(self, x):
        return self.shown(x)


def _paths(model):
    return [(s.path, s.obj.name) for s in object_graph.saveables(model)]


def test_each_class_is_listed_once_per_walk(monkeypatch):
    model = lamina.Sequential([lamina.Input((2,))] + [layers.Dense(2) for _ in range(50)])
    calls = []
    real_dir = dir

    def counting_dir(obj):
        calls.append(type(obj).__name__)
        return real_dir(obj)
    monkeypatch.setattr(object_graph, "dir", counting_dir, raising=False)
    found = _paths(model)
    assert len(found) == 51
    assert found[:3] == [("", model.name), ("layers/dense", model.layers[0].name),
                         ("layers/dense_1", model.layers[1].name)]
    assert calls.count("Dense") <= 1 and len(calls) <= 3


def test_shadowing_attributes_and_custom_dir_keep_their_paths():
    inputs = lamina.Input((2,))
    shadowing, own_dir = _Shadowing(name="shadowing"), _OwnDir(name="own_dir")
    model = lamina.Model(inputs, own_dir(shadowing(inputs)))
    assert _paths(model) == [
        ("", model.name), ("layers/input_layer", model.layers[0].name),
        ("layers/__shadowing", "shadowing"), ("layers/__shadowing/helper", "in_helper"),
        ("layers/__shadowing/inner", "inner"), ("layers/__own_dir", "own_dir"),
        ("layers/__own_dir/shown", "shown")]
