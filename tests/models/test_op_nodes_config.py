"""Ops applied between layers (``x + y``, ``x[:, 0]``, ``ops.transpose``) survive a
functional model's config, as in Keras 3: in Lamina's own configs and in Keras's."""
import json
import os

import numpy as np
import pytest

import lamina
from lamina import layers, ops

HERE = os.path.dirname(os.path.abspath(__file__))
# Keras 3.15.1's model.to_json() of: a, b = Input((3,)); z = Dense(2, ones)((a + b) * 2);
# Model([a, b], [z[:, 0], ops.transpose(z)])
KERAS_JSON = os.path.join(HERE, "fixtures", "keras_ops_between_layers.json")
A = np.array([[1, 2, 3], [4, 5, 6]], "float32")
B = np.array([[0.5, 0, 1], [1, 1, 1]], "float32")
KERAS_OUTPUTS = [[15.0, 36.0], [[15.0, 36.0], [15.0, 36.0]]]     # Keras's predict


def setup_function():
    lamina.backend.clear_session(free_memory=False)


def _model():
    a, b = lamina.Input((3,), name="a"), lamina.Input((3,), name="b")
    z = layers.Dense(2, kernel_initializer="ones", name="dense")((a + b) * 2)
    return lamina.Model([a, b], [z[:, 0], ops.transpose(z)])


def test_ops_are_entries_of_the_config_and_round_trip_through_json():
    model = _model()
    entries = model.get_config()["layers"]
    assert [(e["class_name"], e["name"]) for e in entries] == [
        ("InputLayer", "a"), ("InputLayer", "b"), ("Add", "add"), ("Multiply", "multiply"),
        ("Dense", "dense"), ("GetItem", "get_item"), ("Transpose", "transpose")]
    multiply = entries[3]["inbound_nodes"][0]["args"]
    assert multiply[0]["config"]["keras_history"] == ["add", 0, 0]
    assert multiply[1]["class_name"] == "__tensor__" and multiply[1]["config"]["value"] == 2.0
    text = model.to_json()
    clone = lamina.models.model_from_json(text)
    assert clone.to_json() == text
    for got, want in zip(clone([A, B]), KERAS_OUTPUTS):
        np.testing.assert_array_equal(np.asarray(got), want)


def test_a_keras_config_with_ops_between_layers_loads():
    with open(KERAS_JSON) as f:
        model = lamina.models.model_from_json(f.read())
    for got, want in zip(model([A, B]), KERAS_OUTPUTS):
        np.testing.assert_array_equal(np.asarray(got), want)


def test_an_unknown_op_in_a_config_is_refused():
    config = json.loads(_model().to_json())
    config["config"]["layers"][2]["class_name"] = "NoSuchOp"
    with pytest.raises(ValueError, match=r"'NoSuchOp'.*not a registered Lamina op"):
        lamina.models.model_from_json(json.dumps(config))


def test_a_variable_between_layers_cannot_be_written():
    a = lamina.Input((2,), name="a")
    v = lamina.Variable(np.ones((2,), "float32"))
    model = lamina.Model(a, layers.Dense(1)(a * v))
    with pytest.raises(ValueError, match=r"op 'multiply': cannot write .*Variable"):
        model.get_config()
