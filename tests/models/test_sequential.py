import numpy as np
import pytest

import lamina
from lamina import layers


def setup_function():
    lamina.backend.clear_session(free_memory=False)


def _mlp(**kwargs):
    return lamina.Sequential([lamina.Input((4,)), layers.Dense(3, activation="relu"),
                              layers.Dense(2)], **kwargs)


def test_sequential_from_input_is_built_and_computes_the_stack(backend):
    model = _mlp()
    assert model.built and model.name == "sequential"
    assert [layer.name for layer in model.layers] == ["dense", "dense_1"]
    x = np.random.default_rng(0).standard_normal((5, 4)).astype("float32")
    k1, b1, k2, b2 = model.get_weights()
    np.testing.assert_allclose(model(x).numpy(), np.maximum(x @ k1 + b1, 0) @ k2 + b2,
                               rtol=1e-5, atol=1e-6)
    assert model.input_shape == (None, 4) and model.output_shape == (None, 2)


def test_sequential_builds_on_first_call():
    model = lamina.Sequential([layers.Dense(3), layers.Dense(1)])
    assert not model.built
    y = model(np.ones((2, 5), "float32"))
    assert model.built and y.shape == (2, 1) and model.count_params() == 22


def test_input_shape_on_first_layer_and_build():
    model = lamina.Sequential([layers.Dense(3, input_shape=(4,)), layers.Dense(1)])
    assert model.built and model.count_params() == 19
    other = lamina.Sequential([layers.Dense(3)])
    other.build((None, 6))
    assert other.count_params() == 21


def test_add_and_pop():
    model = lamina.Sequential()
    model.add(lamina.Input((3,)))
    model.add(layers.Dense(4))
    model.add(layers.Dense(2))
    assert model.output_shape == (None, 2)
    popped = model.pop()
    assert popped.name == "dense_1" and model.output_shape == (None, 4)


def test_add_rejects_non_layers_and_duplicate_names():
    model = lamina.Sequential(name="seq")
    with pytest.raises(TypeError, match=r"seq.add: expected a Layer instance \(Only instances "
                                        r"of `keras.Layer` can be added to a Sequential "
                                        r"model\); received int"):
        model.add(3)
    with pytest.raises(ValueError, match=r"Only instances of"):        # Keras's type too
        model.add({})
    model.add(layers.Dense(2, name="d"))
    with pytest.raises(ValueError, match=r"should have unique names; 'd' is already used"):
        model.add(layers.Dense(2, name="d"))


def test_a_second_input_or_a_conflicting_build_is_refused():
    model = lamina.Sequential(name="seq")
    model.add(lamina.Input(shape=(2,), batch_size=3))
    with pytest.raises(ValueError, match=r"seq.add: an InputLayer may only be the first layer: "
                                         r"the model's input has already been configured"):
        model.add(layers.InputLayer(shape=(2,), batch_size=3))
    model.add(layers.Dense(2))
    with pytest.raises(ValueError, match=r"seq.build: the model's input has already been "
                                         r"configured with shape \(3, 2\); received "
                                         r"input_shape \(3, 4\)"):
        model.build((3, 4))
    model.build((3, 2))
    model.build((None, 2))


def test_layers_cannot_be_assigned():
    with pytest.raises(AttributeError, match=r"`Model.layers` attribute is reserved and should "
                                             r"not be used. Use `add\(\)` and `pop\(\)`"):
        lamina.Sequential(name="s").layers = [layers.Dense(4)]
    with pytest.raises(AttributeError, match=r"`Model.layers` attribute is reserved and should "
                                             r"not be used. Please use another name."):
        lamina.Model().layers = [layers.Dense(4)]


def test_pop_on_empty_model():
    with pytest.raises(IndexError, match=r"no layers to remove"):
        lamina.Sequential(name="e").pop()


def test_wrong_input_rank_names_the_layer():
    model = lamina.Sequential([lamina.Input((8, 8, 3)),
                               layers.Dense(2, name="head")])
    with pytest.raises(ValueError, match=r"expects shape \(None, 8, 8, 3\); received shape "
                                         r"\(2, 8, 3\)"):
        model(np.ones((2, 8, 3), "float32"))


def test_get_config_round_trip_keeps_names_and_outputs():
    model = _mlp()
    config = model.get_config()
    assert config["layers"][0]["class_name"] == "InputLayer"
    assert config["layers"][1]["config"]["units"] == 3
    clone = lamina.Sequential.from_config(config)
    assert [layer.name for layer in clone.layers] == ["dense", "dense_1"]
    clone.set_weights(model.get_weights())
    x = np.ones((2, 4), "float32")
    np.testing.assert_allclose(clone(x).numpy(), model(x).numpy())


def test_set_weights_keeps_variable_identity():
    model = _mlp()
    before = [id(w) for w in model.weights]
    model.set_weights([np.zeros(w.shape, "float32") for w in model.weights])
    assert [id(w) for w in model.weights] == before
    assert np.all(model(np.ones((1, 4), "float32")).numpy() == 0)


def test_get_layer():
    model = _mlp()
    assert model.get_layer("dense_1") is model.layers[1]
    assert model.get_layer(index=0) is model.layers[0]
    with pytest.raises(ValueError, match=r"no layer named 'nope'"):
        model.get_layer("nope")
