import numpy as np
import pytest

from lamina import layers, ops
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.LayerNormalization, {}, (2, 3, 4), (2, 3, 4), trainable_weights=2,
              params=8, weight_shapes={"gamma": (4,), "beta": (4,)}),
    LayerCase(layers.LayerNormalization, dict(axis=[1, 2], epsilon=1e-5), (2, 3, 4),
              (2, 3, 4), trainable_weights=2, params=24,
              weight_shapes={"gamma": (3, 4), "beta": (3, 4)}),
    LayerCase(layers.LayerNormalization, dict(center=False), (2, 5), (2, 5),
              trainable_weights=1, params=5, weight_shapes={"gamma": (5,)}),
    LayerCase(layers.LayerNormalization, dict(rms_scaling=True), (2, 5), (2, 5),
              trainable_weights=1, params=5, weight_shapes={"gamma": (5,)}),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_layer_normalization_harness(case, backend):
    run_layer_case(case)


def _reference(x, axes, gamma, beta, epsilon):
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + epsilon) * gamma + beta


@pytest.mark.parametrize("axis", [-1, [1, 2], 1])
def test_layer_normalization_matches_numpy(axis, backend):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((3, 4, 5)) * 3 + 2).astype("float32")
    layer = layers.LayerNormalization(axis=axis)
    layer(x)
    axes = tuple(axis) if isinstance(axis, list) else (axis,)
    shape = [1, 1, 1]
    for a in axes:
        shape[a] = x.shape[a]
    gamma = rng.standard_normal(layer.gamma.shape).astype("float32")
    beta = rng.standard_normal(layer.beta.shape).astype("float32")
    layer.set_weights([gamma, beta])
    expected = _reference(x, axes, gamma.reshape(shape), beta.reshape(shape), 1e-3)
    np.testing.assert_allclose(layer(x).numpy(), expected, rtol=1e-4, atol=1e-5)


def test_rms_scaling_matches_keras_formula(backend):
    x = np.random.default_rng(1).standard_normal((2, 6)).astype("float32") + 1
    y = layers.LayerNormalization(rms_scaling=True, epsilon=1e-3)(x).numpy()
    np.testing.assert_allclose(y, x / np.sqrt(x.var(-1, keepdims=True) + 1e-3), rtol=1e-5)


def test_axis_is_a_list_once_built_as_in_keras():
    layer = layers.LayerNormalization()
    assert layer.get_config()["axis"] == -1
    layer(np.ones((2, 3), "float32"))
    assert layer.get_config()["axis"] == [-1]


def test_mask_passes_through():
    x = ops.convert_to_tensor(np.ones((2, 3, 4), "float32"))
    x._keras_mask = ops.convert_to_tensor(np.array([[1, 1, 0], [1, 0, 0]], bool))
    y = layers.LayerNormalization()(x)
    assert y._keras_mask is x._keras_mask


def test_rejects_bad_arguments():
    with pytest.raises(TypeError, match=r"ln_a: argument 'axis' must be an int or a non-empty "
                                        r"list of ints; received 'last'"):
        layers.LayerNormalization(axis="last", name="ln_a")
    with pytest.raises(ValueError, match=r"ln_e: argument 'epsilon' must be a non-negative "
                                         r"number; received -0.1"):
        layers.LayerNormalization(epsilon=-0.1, name="ln_e")
    with pytest.raises(ValueError, match=r"ln_x: argument 'axis' must name distinct axes of "
                                         r"the input \(rank 2\); received axis=\[3\]"):
        layers.LayerNormalization(axis=3, name="ln_x")(np.ones((2, 3), "float32"))
    with pytest.raises(ValueError, match=r"received axis=\[1, -1\]"):
        layers.LayerNormalization(axis=[1, -1])(np.ones((2, 3), "float32"))


def test_bad_axis_message_carries_keras_s_wording():
    with pytest.raises(TypeError, match=r"ln: argument 'axis' must be an int or a non-empty "
                                        r"list of ints; received \{'axis': -1\} \(Expected an "
                                        r"int or a list/tuple of ints for the argument "
                                        r"'axis'\)"):
        layers.LayerNormalization(axis={"axis": -1}, name="ln")
