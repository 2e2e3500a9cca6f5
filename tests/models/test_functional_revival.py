"""Functional models made from intermediate tensors, their config errors, and custom Model
subclasses rebuilt from a functional config (Keras 3's ``functional_from_config``)."""
import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.models import Functional


def setup_function():
    lamina.backend.clear_session(free_memory=False)


def test_inputs_and_outputs_must_be_symbolic():
    a = lamina.Input((3,), name="a")
    with pytest.raises(ValueError, match=r"All `inputs` values must be KerasTensors.*input 0 "
                                         r"is 'input_a' of type str"):
        Functional({"a": "input_a"}, a)
    with pytest.raises(ValueError, match=r"All `outputs` values must be KerasTensors"):
        Functional({"a": a}, "outputs")


def test_a_model_from_intermediate_tensors_gets_fresh_inputs():
    inputs = lamina.Input((None, 2), name="input")
    x1 = layers.Dense(3, name="dense1")(inputs)
    x2 = layers.Dense(4, name="dense2")(x1)
    outputs = layers.Dense(5, name="dense3")(x2)
    full = Functional(inputs, outputs)
    tail = Functional(x2, outputs, name="tail")
    assert [type(layer).__name__ for layer in tail.layers] == ["InputLayer", "Dense"]
    assert tail.layers[1].name == "dense3" and tail.input_shape == (None, None, 4)
    middle = Functional(full.get_layer("dense2").input, outputs)
    assert [layer.name for layer in middle.layers[1:]] == ["dense2", "dense3"]
    x = np.random.default_rng(0).standard_normal((2, 3, 2)).astype("float32")
    h = full.get_layer("dense1")(x)
    np.testing.assert_allclose(np.asarray(middle(h)), np.asarray(full(x)), rtol=1e-6)


def test_tuple_outputs_stay_a_tuple_through_the_config():
    inputs = lamina.Input((3,), batch_size=2)
    x = layers.Dense(5)(inputs)
    model = Functional(inputs, (layers.Dense(4)(x), layers.Dense(5)(x)))
    restored = Functional.from_config(model.get_config())
    assert isinstance(restored(np.ones((2, 3))), tuple)


def _config(nodes: dict) -> dict:
    entries = [{"class_name": "InputLayer", "name": "input_1", "inbound_nodes": [],
                "config": {"batch_shape": [None, 10], "dtype": "float32",
                           "name": "input_1"}}]
    for name, source in nodes.items():
        entries.append({"class_name": "Dense", "name": name, "config": {"units": 10,
                                                                        "name": name},
                        "inbound_nodes": [[[source, 0, 0, {}]]]})
    return {"name": "m", "layers": entries, "input_layers": [["input_1", 0, 0]],
            "output_layers": [[list(nodes)[-1], 0, 0]]}


def test_config_errors_name_the_loop_and_the_missing_node():
    with pytest.raises(ValueError, match=r"either has loops or disconnected nodes.*"
                                         r"\['node_a', 'node_b'\]"):
        Functional.from_config(_config({"node_a": "node_b", "node_b": "node_a"}))
    with pytest.raises(ValueError, match=r"Missing node: node_b"):
        Functional.from_config(_config({"node_a": "node_b"}))


class _CustomModel(lamina.Model):
    def __init__(self, *args, param=1, **kwargs):
        super().__init__(*args, **kwargs)
        self.param = param

    def get_config(self):
        return super().get_config() | {"param": self.param}


def test_a_subclass_keeps_its_own_arguments_through_its_config():
    inputs = lamina.Input((3,))
    model = _CustomModel(inputs=inputs, outputs=layers.Dense(5)(inputs), param=3)
    restored = _CustomModel.from_config(model.get_config())
    assert restored.param == 3 and isinstance(restored, _CustomModel)
    assert restored.output_shape == (None, 5)


def test_a_subclass_that_cannot_take_its_config_says_so():
    class Fixed(lamina.Model):
        def __init__(self, units):
            super().__init__()
            self.dense = layers.Dense(units)

        def call(self, x):
            return self.dense(x)

    with pytest.raises(TypeError, match=r"Fixed.from_config: Unable to revive model from "
                                        r"config"):
        Fixed.from_config({"name": "fixed", "trainable": True})
