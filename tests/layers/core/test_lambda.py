import numpy as np
import pytest

import lamina
from lamina import layers, ops
from tests.layers.harness import LayerCase, case_id, run_layer_case


@lamina.saving.register_keras_serializable(package="LambdaTests")
def double_plus(x, offset=0.0):
    return ops.add(ops.multiply(x, 2.0), offset)


@lamina.saving.register_keras_serializable(package="LambdaTests")
def first_half(x):
    return x[:, : x.shape[1] // 2]


def _unregistered_square(x):
    return ops.square(x)


CASES = [
    LayerCase(layers.Lambda, dict(function=double_plus), (2, 3), (2, 3), trainable_weights=0,
              params=0),
    LayerCase(layers.Lambda, dict(function=double_plus, arguments={"offset": 1.5}), (2, 3),
              (2, 3), trainable_weights=0, params=0, id="Lambda(arguments)"),
    LayerCase(layers.Lambda, dict(function=first_half, output_shape=(2,)), (3, 4), (3, 2),
              trainable_weights=0, params=0, id="Lambda(output_shape)"),
    LayerCase(layers.Lambda, dict(function=lamina.activations.relu), (2, 5), (2, 5),
              trainable_weights=0, params=0, id="Lambda(builtin)"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_lambda_harness(case, backend):
    run_layer_case(case)


def test_lambda_infers_the_shape_without_output_shape():
    out = layers.Lambda(first_half)(lamina.Input((6,)))
    assert out.shape == (None, 3)


def test_lambda_uses_output_shape_without_running_the_function():
    calls = []

    def host_only(x):                   # could not run on a symbolic tensor
        calls.append(x)
        return ops.convert_to_tensor(np.asarray(x.numpy()).sum(axis=1, keepdims=True))

    inputs = lamina.Input((4,))
    out = layers.Lambda(host_only, output_shape=(1,))(inputs)
    assert out.shape == (None, 1) and not calls
    model = lamina.Model(inputs, out)
    x = np.arange(8, dtype="float32").reshape(2, 4)
    np.testing.assert_allclose(model(x).numpy(), x.sum(1, keepdims=True))


def test_lambda_callable_output_shape():
    layer = layers.Lambda(first_half, output_shape=lambda s: (s[0], s[1] // 2))
    assert layer.compute_output_shape((None, 8)) == (None, 4)
    assert layer(lamina.Input((8,))).shape == (None, 4)


def test_lambda_passes_mask_and_training():
    seen = {}

    def fn(x, mask=None, training=None):
        seen.update(mask=mask, training=training)
        return x

    ids = np.array([[1, 0]])
    layers.Lambda(fn)(layers.Embedding(3, 2, mask_zero=True)(ids), training=True)
    np.testing.assert_array_equal(seen["mask"].numpy(), [[True, False]])
    assert seen["training"] is True


def test_lambda_mask_argument():
    layer = layers.Lambda(lambda x: x, mask=lambda inputs, mask: ops.greater(inputs[..., 0], 0))
    out = layer(np.array([[[1.0], [-1.0]]], "float32"))
    np.testing.assert_array_equal(out._keras_mask.numpy(), [[True, False]])


def test_lambda_config_of_a_named_function():
    config = layers.Lambda(_unregistered_square).get_config()
    assert config["function"] == {"module": "builtins", "class_name": "function",
                                  "config": "_unregistered_square",
                                  "registered_name": "function"}
    with pytest.raises(ValueError, match=r"_unregistered_square"):
        layers.Lambda.from_config(config)
    with lamina.saving.custom_object_scope({"_unregistered_square": _unregistered_square}):
        clone = layers.Lambda.from_config(config)
    assert clone.function is _unregistered_square
    clone = layers.Lambda.from_config(
        config, custom_objects={"_unregistered_square": _unregistered_square})
    np.testing.assert_allclose(clone(np.array([3.0], "float32")).numpy(), [9.0])


def test_lambda_config_of_a_python_lambda_has_no_bytecode():
    config = layers.Lambda(lambda x: x + 1).get_config()
    assert config["function"] == {"class_name": "__lambda__",
                                  "config": {"code": None, "defaults": None, "closure": None}}


def test_lambda_from_config_refuses_lambdas():
    config = layers.Lambda(lambda x: x + 1, name="lam").get_config()
    with pytest.raises(ValueError, match=r"lam: the config's 'function' is a Python lambda.*"
                                         r"Lamina never runs code from a config.*"
                                         r"custom_objects=.*custom_object_scope"):
        layers.Lambda.from_config(config)
    keras_config = dict(config, function={"class_name": "__lambda__", "config": {
        "code": "4wEAAAAAAAAA", "defaults": None, "closure": None}})
    with pytest.raises(ValueError, match=r"never runs code"):
        layers.Lambda.from_config(keras_config)
    with pytest.raises(ValueError, match=r"'output_shape' is a Python lambda"):
        layers.Lambda.from_config(dict(layers.Lambda(double_plus).get_config(),
                                       output_shape=config["function"]))


def test_lambda_rejects_bad_arguments():
    with pytest.raises(TypeError, match=r"l: argument 'function' must be callable; "
                                        r"received 3"):
        layers.Lambda(3, name="l")
    with pytest.raises(TypeError, match=r"l: argument 'arguments' must be a dict"):
        layers.Lambda(double_plus, arguments=[1], name="l")
    with pytest.raises(TypeError, match=r"l: argument 'output_shape' must be a shape tuple"):
        layers.Lambda(double_plus, output_shape="wide", name="l")


def test_lambda_tensor_mask_cannot_be_stored():
    layer = layers.Lambda(double_plus, mask=ops.ones((1, 2), dtype="bool"), name="l")
    with pytest.raises(TypeError, match=r"l.get_config: a tensor 'mask' cannot be stored"):
        layer.get_config()
