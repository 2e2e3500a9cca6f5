"""Model.get_state_tree / set_state_tree (Keras 3): variables nested by their paths."""
import numpy as np
import pytest

import lamina
from lamina import layers


def _model():
    inputs = lamina.Input((3,), name="x")
    model = lamina.Model(inputs, layers.Dense(1, name="output_a")(inputs))
    model.compile(loss="mse", optimizer="adam")
    return model


def test_get_state_tree_nests_the_variables_by_path():
    model = _model()
    tree = model.get_state_tree(value_format="numpy_array")
    assert sorted(tree) == ["metrics_variables", "non_trainable_variables",
                            "optimizer_variables", "trainable_variables"]
    kernel = tree["trainable_variables"]["output_a"]["kernel"]
    assert isinstance(kernel, np.ndarray)
    np.testing.assert_array_equal(kernel, model.layers[1].kernel.numpy())
    assert tree["non_trainable_variables"] == {}
    adam = tree["optimizer_variables"][model.optimizer.name]
    assert sorted(adam) == ["iteration", "learning_rate"]
    np.testing.assert_allclose(adam["learning_rate"], 0.001)
    assert sorted(tree["metrics_variables"]["loss"]) == ["count", "total"]
    tensor = model.get_state_tree()["trainable_variables"]["output_a"]["bias"]
    assert lamina.ops.is_tensor(tensor)
    with pytest.raises(ValueError, match="Invalid `value_format` argument"):
        model.get_state_tree(value_format="list")


def test_set_state_tree_assigns_by_path():
    model = _model()
    name = model.optimizer.name           # "adam", or "adam_3" after other tests
    model.set_state_tree({
        "optimizer_variables": {name: {"iteration": 0, "learning_rate": 0.00001}},
        "trainable_variables": {"output_a": {"bias": [0.5],
                                             "kernel": [[0.6], [0.7], [1.8]]}}})
    dense = model.layers[1]
    np.testing.assert_allclose(dense.kernel.numpy(), [[0.6], [0.7], [1.8]])
    np.testing.assert_allclose(dense.bias.numpy(), [0.5])
    np.testing.assert_allclose(float(model.optimizer.learning_rate), 1e-5)
    with pytest.raises(ValueError, match="Unknown variable name: 'weights'"):
        model.set_state_tree({"weights": {}})


def test_duplicate_paths_are_refused():
    class Twice(lamina.Model):
        def __init__(self):
            super().__init__()
            self.a = layers.Dense(1, name="same")
            self.b = layers.Dense(1, name="same")

        def call(self, x):
            return self.b(self.a(x))

    model = Twice()
    model(np.ones((1, 2), "float32"))
    model.compile(loss="mse", optimizer="adam")
    with pytest.raises(ValueError, match="The following variable path is found twice in "
                                         "the model: 'same/kernel'"):
        model.get_state_tree()


def test_variable_map_holds_every_variable_by_path():
    inputs = lamina.Input((4,), batch_size=2)
    x = lamina.layers.Dense(1, name="first_dense")(inputs)
    model = lamina.Model(inputs, lamina.layers.Dense(1, name="second_dense")(x))
    model.compile(optimizer="adam", loss="mse")
    model.optimizer.build(model.trainable_variables)
    found = model._get_variable_map()
    assert found["first_dense/kernel"] is model.layers[1].kernel
    assert found["second_dense/bias"] is model.layers[2].bias
    assert found[f"{model.optimizer.name}/learning_rate"] is model.optimizer.learning_rate
    assert len(found) == len(model.variables) + len(model.optimizer.variables) + \
        len(model.metrics_variables)           # the loss tracker's total and count
