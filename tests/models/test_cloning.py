import numpy as np
import pytest

import lamina
from lamina import layers


def setup_function():
    lamina.backend.clear_session(free_memory=False)


def test_clone_sequential_has_fresh_weights_and_same_architecture():
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(3), layers.Dense(2)])
    clone = lamina.models.clone_model(model)
    assert [w.shape for w in clone.weights] == [w.shape for w in model.weights]
    assert all(a is not b for a, b in zip(clone.weights, model.weights))
    assert not np.allclose(clone.weights[0].numpy(), model.weights[0].numpy())


def test_clone_functional_with_shared_layers_and_clone_function():
    a, b = lamina.Input((3,), name="a"), lamina.Input((3,), name="b")
    shared = layers.Dense(2, name="s")
    model = lamina.Model([a, b], [shared(a), shared(b) * 2.0])
    seen = []

    def clone_function(layer):
        seen.append(layer.name)
        return layer.__class__.from_config(layer.get_config())
    clone = lamina.models.clone_model(model, clone_function=clone_function)
    assert seen == ["s"] and len(clone.weights) == 2
    clone.set_weights(model.get_weights())
    x = [np.ones((1, 3), "float32"), np.full((1, 3), 2.0, "float32")]
    for p, q in zip(clone(x), model(x)):
        np.testing.assert_allclose(p.numpy(), q.numpy())


def test_clone_of_a_compiled_model_is_compiled_the_same_way():
    inputs = lamina.Input((3,))
    functional = lamina.Model(inputs, layers.Dense(1)(inputs))
    sequential = lamina.Sequential([lamina.Input((3,)), layers.Dense(1)])
    for model in (sequential, functional):
        assert lamina.models.clone_model(model).compiled is False
        model.compile(optimizer=lamina.optimizers.Adam(0.01), loss="binary_crossentropy")
        clone = lamina.models.clone_model(model)
        assert clone.compiled is True
        assert clone.optimizer is not model.optimizer
        np.testing.assert_allclose(float(clone.optimizer.learning_rate), 0.01)
        assert clone.get_compile_config() == model.get_compile_config()


def test_flatten_layers_lists_nested_layers_once_depth_first():
    inner = lamina.Sequential([lamina.Input((3,)), layers.Dense(2, name="a")], name="inner")
    inputs = lamina.Input((3,), name="x")
    shared = layers.Dense(3, name="shared")
    model = lamina.Model(inputs, layers.Dense(1, name="out")(inner(shared(shared(inputs)))))
    names = [layer.name for layer in model._flatten_layers()]
    assert names[0] == model.name
    assert names.count("shared") == 1
    assert names.index("a") == names.index("inner") + 1
    assert [layer.name for layer in model._flatten_layers(include_self=False,
                                                          recursive=False)] == \
        [layer.name for layer in model.layers]


def test_unknown_keyword_arguments_are_refused_as_in_keras():
    model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(2)])
    with pytest.raises(ValueError, match=r"clone_model: Unexpected keyword argument\(s\): "
                                         r"\('clone_weights',\)"):
        lamina.models.clone_model(model, clone_weights=True)
    assert lamina.models.clone_model(model, cache={}).layers[0].units == 2
