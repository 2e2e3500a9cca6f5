import json

import numpy as np
import pytest

import lamina
from lamina import layers, ops


def setup_function():
    lamina.backend.clear_session(free_memory=False)


def _two_in_two_out():
    a = lamina.Input((4,), name="a")
    b = lamina.Input((3,), name="b")
    shared = layers.Dense(5, name="shared")
    ha = shared(layers.Dense(3, name="proj")(a))
    hb = shared(b)
    out1 = layers.Dense(2, name="out1")(ha)
    out2 = ha + hb
    return lamina.Model([a, b], [out1, out2], name="two"), shared


def test_multi_input_multi_output_with_a_shared_layer(backend):
    model, shared = _two_in_two_out()
    rng = np.random.default_rng(0)
    xa = rng.standard_normal((6, 4)).astype("float32")
    xb = rng.standard_normal((6, 3)).astype("float32")
    y1, y2 = model([xa, xb])
    pk, pb = model.get_layer("proj").get_weights()
    sk, sb = shared.get_weights()
    ok, ob = model.get_layer("out1").get_weights()
    ha = (xa @ pk + pb) @ sk + sb
    np.testing.assert_allclose(y1.numpy(), ha @ ok + ob, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(y2.numpy(), ha + xb @ sk + sb, rtol=1e-5, atol=1e-5)
    # Keras 3's order (by depth from the outputs): ['a', 'proj', 'b', 'shared', 'out1'].
    assert [layer.name for layer in model.layers] == ["a", "proj", "b", "shared", "out1"]
    assert len(model.weights) == 6 and len(shared._inbound_nodes) == 2


def test_dict_inputs_by_input_name():
    model, _ = _two_in_two_out()
    xa, xb = np.ones((2, 4), "float32"), np.ones((2, 3), "float32")
    by_list = model([xa, xb])
    by_name = model({"b": xb, "a": xa})
    for p, q in zip(by_list, by_name):
        np.testing.assert_allclose(p.numpy(), q.numpy())


def test_dict_outputs_and_inputs():
    x = lamina.Input((2,), name="x")
    model = lamina.Model({"x": x}, {"double": x * 2.0, "neg": -x})
    out = model({"x": np.array([[1.0, 2.0]], "float32")})
    np.testing.assert_allclose(out["double"].numpy(), [[2.0, 4.0]])
    np.testing.assert_allclose(out["neg"].numpy(), [[-1.0, -2.0]])


def test_python_operators_and_slicing_on_symbolic_tensors():
    x = lamina.Input((4,))
    y = ops.concatenate([x[:, :2] * 3.0, x[:, 2:] - 1.0], axis=-1)
    model = lamina.Model(x, y)
    np.testing.assert_allclose(model(np.array([[1, 2, 3, 4]], "float32")).numpy(),
                               [[3, 6, 2, 3]])


def test_nested_model_as_a_layer():
    inner_in = lamina.Input((3,))
    inner = lamina.Model(inner_in, layers.Dense(2, name="inner_dense")(inner_in), name="inner")
    x = lamina.Input((3,))
    outer = lamina.Model(x, layers.Dense(1, name="head")(inner(x)), name="outer")
    assert [layer.name for layer in outer.layers][1:] == ["inner", "head"]
    assert outer.count_params() == 8 + 3
    data = np.ones((2, 3), "float32")
    k, b = inner.get_weights()
    hk, hb = outer.get_layer("head").get_weights()
    np.testing.assert_allclose(outer(data).numpy(), (data @ k + b) @ hk + hb, rtol=1e-5)


def test_training_flag_reaches_layers_of_the_graph():
    seen = []

    class Spy(layers.Layer):
        def call(self, x, training=None):
            seen.append(training)
            return x
    x = lamina.Input((2,))
    model = lamina.Model(x, Spy()(x))
    seen.clear()
    model(np.ones((1, 2), "float32"), training=True)
    model(np.ones((1, 2), "float32"), training=False)
    assert seen == [True, False]


def test_graph_disconnected_is_a_clear_error():
    a, b = lamina.Input((2,), name="ia"), lamina.Input((2,), name="ib")
    with pytest.raises(ValueError, match=r"graph disconnected"):
        lamina.Model(a, layers.Add()([a, b]) if hasattr(layers, "Add") else a + b)


def test_inputs_must_come_from_input():
    with pytest.raises(TypeError, match=r"every input must be a symbolic tensor \(All "
                                        r"`inputs` values must be KerasTensors"):
        lamina.Model(ops.ones((1, 2)), lamina.Input((2,)))


def test_wrong_number_of_inputs():
    model, _ = _two_in_two_out()
    with pytest.raises(ValueError, match=r"two: expects 2 input\(s\) \(a, b\); received 1"):
        model(np.ones((1, 4), "float32"))


def test_config_round_trip_json_and_same_outputs():
    x = lamina.Input((4,), name="x")
    d = layers.Dense(3, name="d")
    h = d(x)
    y = layers.Dense(2, name="y")(h)
    model = lamina.Model(x, [y, h], name="m")
    config = json.loads(json.dumps(model.get_config()))
    assert config["input_layers"] == ["x", 0, 0]
    assert config["output_layers"] == [["y", 0, 0], ["d", 0, 0]]
    entry = config["layers"][2]
    assert entry["inbound_nodes"][0]["args"][0]["config"]["keras_history"] == ["d", 0, 0]
    clone = lamina.Model.from_config(config)
    clone.set_weights(model.get_weights())
    data = np.ones((2, 4), "float32")
    for p, q in zip(clone(data), model(data)):
        np.testing.assert_allclose(p.numpy(), q.numpy())


def test_config_reads_keras2_inbound_nodes():
    config = {"name": "k2", "layers": [
        {"class_name": "InputLayer", "name": "in",
         "config": {"batch_input_shape": [None, 3], "dtype": "float32", "name": "in"},
         "inbound_nodes": []},
        {"class_name": "Dense", "name": "d", "config": {"name": "d", "units": 2},
         "inbound_nodes": [[["in", 0, 0, {}]]]}],
        "input_layers": [["in", 0, 0]], "output_layers": [["d", 0, 0]]}
    model = lamina.Model.from_config(config)
    assert model.output_shape == (None, 2) and model.count_params() == 8


def test_config_with_shared_layer_keeps_sharing():
    model, _ = _two_in_two_out()          # `ha + hb` is an op entry of the config
    clone = lamina.Model.from_config(model.get_config())
    assert len(clone.layer_nodes(clone.get_layer("shared"))) == 2
    clone.set_weights(model.get_weights())
    data = [np.ones((2, 4), "float32"), np.ones((2, 3), "float32")]
    for p, q in zip(clone(data), model(data)):
        np.testing.assert_allclose(p.numpy(), q.numpy())
    a = lamina.Input((3,), name="a")
    b = lamina.Input((3,), name="b")
    shared = layers.Dense(2, name="s")
    m = lamina.Model([a, b], [shared(a), shared(b)])
    clone = lamina.Model.from_config(m.get_config())
    assert len(clone.weights) == 2
    assert len(clone.layer_nodes(clone.get_layer("s"))) == 2


def test_model_subclass_with_functional_constructor():
    class Wrapped(lamina.Model):
        pass
    x = lamina.Input((2,))
    model = Wrapped(x, layers.Dense(1)(x))
    assert isinstance(model, Wrapped) and model(np.ones((3, 2), "float32")).shape == (3, 1)
