import numpy as np
import pytest

import lamina
from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.BatchNormalization, {}, (4, 3, 5), (4, 3, 5), trainable_weights=2,
              non_trainable_weights=2, params=20,
              weight_shapes={"gamma": (5,), "beta": (5,), "moving_mean": (5,),
                             "moving_variance": (5,)}),
    LayerCase(layers.BatchNormalization, dict(axis=1, momentum=0.9, epsilon=1e-5),
              (2, 3, 4, 4), (2, 3, 4, 4), trainable_weights=2, non_trainable_weights=2,
              params=12),
    LayerCase(layers.BatchNormalization, dict(center=False, scale=False), (3, 4), (3, 4),
              trainable_weights=0, non_trainable_weights=2, params=8,
              weight_shapes={"moving_mean": (4,), "moving_variance": (4,)}),
    LayerCase(layers.BatchNormalization, dict(gamma_regularizer="l2", beta_constraint="non_neg",
                                              gamma_initializer="random_normal"),
              (3, 6), (3, 6), trainable_weights=2, non_trainable_weights=2, params=24),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_batch_normalization_harness(case, backend):
    run_layer_case(case)


def _data(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype("float32") * 2 + 1


def _stats(c, seed=1):
    rng = np.random.default_rng(seed)
    gamma, beta = rng.standard_normal(c), rng.standard_normal(c)
    mean, var = rng.standard_normal(c), rng.uniform(0.5, 2.0, c)
    return [a.astype("float32") for a in (gamma, beta, mean, var)]


def test_inference_uses_the_moving_statistics(backend):
    x = _data((6, 4))
    layer = layers.BatchNormalization(epsilon=1e-3)
    layer.build((None, 4))
    gamma, beta, mean, var = _stats(4)
    layer.set_weights([gamma, beta, mean, var])
    expected = gamma * (x - mean) / np.sqrt(var + 1e-3) + beta
    for training in (None, False):
        np.testing.assert_allclose(layer(x, training=training).numpy(), expected, rtol=1e-5,
                                   atol=1e-5)
    np.testing.assert_allclose(layer.moving_mean.numpy(), mean)   # untouched


def test_training_uses_batch_statistics_and_updates_moving_ones(backend):
    x = _data((8, 3, 4))
    layer = layers.BatchNormalization(momentum=0.9, epsilon=1e-3)
    layer.build((None, 3, 4))
    gamma, beta, mean, var = _stats(4)
    layer.set_weights([gamma, beta, mean, var])
    y = layer(x, training=True).numpy()
    batch_mean, batch_var = x.mean(axis=(0, 1)), x.var(axis=(0, 1))     # biased variance
    np.testing.assert_allclose(y, gamma * (x - batch_mean) / np.sqrt(batch_var + 1e-3) + beta,
                               rtol=1e-4, atol=1e-4)
    # Keras's convention: moving * momentum + batch * (1 - momentum)
    np.testing.assert_allclose(layer.moving_mean.numpy(), 0.9 * mean + 0.1 * batch_mean,
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(layer.moving_variance.numpy(), 0.9 * var + 0.1 * batch_var,
                               rtol=1e-5, atol=1e-6)


def test_axis_1_normalizes_channels_first_inputs(backend):
    x = _data((4, 3, 2, 5))
    layer = layers.BatchNormalization(axis=1, momentum=0.5)
    y = layer(x, training=True).numpy()
    mean = x.mean(axis=(0, 2, 3), keepdims=True)
    var = x.var(axis=(0, 2, 3), keepdims=True)
    np.testing.assert_allclose(y, (x - mean) / np.sqrt(var + 1e-3), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(layer.moving_mean.numpy(), 0.5 * mean.ravel(), rtol=1e-5,
                               atol=1e-6)
    assert layer.gamma.shape == (3,)
    gamma, beta, mm, mv = _stats(3)
    layer.set_weights([gamma, beta, mm, mv])
    b = lambda v: v.reshape(1, 3, 1, 1)  # noqa: E731
    np.testing.assert_allclose(layer(x).numpy(),
                               b(gamma) * (x - b(mm)) / np.sqrt(b(mv) + 1e-3) + b(beta),
                               rtol=1e-5, atol=1e-5)


def test_frozen_layer_runs_in_inference_mode(backend):
    x = _data((5, 4))
    layer = layers.BatchNormalization()
    layer.build((None, 4))
    gamma, beta, mean, var = _stats(4)
    layer.set_weights([gamma, beta, mean, var])
    layer.trainable = False
    y = layer(x, training=True).numpy()
    np.testing.assert_allclose(y, gamma * (x - mean) / np.sqrt(var + 1e-3) + beta, rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_allclose(layer.moving_mean.numpy(), mean)
    np.testing.assert_allclose(layer.moving_variance.numpy(), var)
    assert layer.trainable_weights == [] and len(layer.non_trainable_weights) == 4


def test_training_flag_is_inherited_from_the_model(backend):
    model = lamina.Sequential([lamina.Input((3,)), layers.Dense(3),
                               layers.BatchNormalization(momentum=0.0)])
    x = _data((16, 3))
    out = model(x, training=True).numpy()
    np.testing.assert_allclose(out.mean(axis=0), 0, atol=1e-5)
    hidden = model.layers[0](x).numpy()
    np.testing.assert_allclose(model.layers[1].moving_mean.numpy(), hidden.mean(axis=0),
                               rtol=1e-5, atol=1e-5)


def test_masked_positions_are_left_out_of_the_batch_statistics(backend):
    x = _data((3, 5, 2))
    mask = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], [1, 0, 0, 0, 0]], bool)
    layer = layers.BatchNormalization(momentum=0.0, center=False, scale=False)
    y = layer(x, training=True, mask=mask).numpy()
    w = mask[..., None].astype("float64")
    count = w.sum() + lamina.backend.epsilon()
    mean = (w * x).sum(axis=(0, 1)) / count
    var = (w * (w * x - mean) ** 2).sum(axis=(0, 1)) / count
    np.testing.assert_allclose(layer.moving_mean.numpy(), mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(layer.moving_variance.numpy(), var, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(y, (x - mean) / np.sqrt(var + 1e-3), rtol=1e-4, atol=1e-4)


def test_training_gradient_matches_central_differences():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3))
    probe = rng.standard_normal((4, 3))
    layer = layers.BatchNormalization(dtype="float64")
    layer.build((None, 3))

    def loss(value):
        return float(np.sum(layer(value, training=True).numpy() * probe))
    xt = lamina.ops.convert_to_tensor(x)
    with lamina.GradientTape() as tape:
        tape.watch(xt)
        out = lamina.ops.sum(lamina.ops.multiply(layer(xt, training=True), probe))
    grad = tape.gradient(out, xt).numpy()
    numeric = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = 1e-6
        numeric[i] = (loss(x + step) - loss(x - step)) / 2e-6
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-6)


def test_float16_inputs_are_normalized_in_float32():
    layer = layers.BatchNormalization(dtype="mixed_float16")
    y = layer(_data((4, 3)).astype("float16"), training=True)
    assert y.dtype == "float16"
    assert layer.moving_mean.dtype == "float32"


def test_config_has_keras_3_keys_and_accepts_keras_2_axis():
    config = layers.BatchNormalization().get_config()
    assert config["axis"] == -1 and config["momentum"] == 0.99 and config["epsilon"] == 0.001
    assert config["synchronized"] is False and config["renorm"] is False
    assert config["gamma_initializer"]["class_name"] == "Ones"
    assert layers.BatchNormalization(axis=[3]).axis == 3


def test_rejects_bad_arguments():
    with pytest.raises(TypeError, match=r"bn_a: argument 'axis' must be an int; received 'x'"):
        layers.BatchNormalization(axis="x", name="bn_a")
    with pytest.raises(ValueError, match=r"bn_m: argument 'momentum' must be a number in "
                                         r"\[0.0, 1.0\]; received 1.5"):
        layers.BatchNormalization(momentum=1.5, name="bn_m")
    with pytest.raises(TypeError, match=r"argument 'momentum' must be a number; received"):
        layers.BatchNormalization(momentum="fast")
    with pytest.raises(ValueError, match=r"bn_e: argument 'epsilon' must be a number >= 0.0; "
                                         r"received -1"):
        layers.BatchNormalization(epsilon=-1, name="bn_e")
    with pytest.raises(TypeError, match=r"argument 'renorm_momentum' must be a number"):
        layers.BatchNormalization(renorm=True, renorm_momentum="slow")


def test_rejects_bad_inputs():
    with pytest.raises(ValueError, match=r"bn_x: argument 'axis' must be a valid axis of the "
                                         r"input \(rank 2\); received axis=2"):
        layers.BatchNormalization(axis=2, name="bn_x")(np.ones((2, 3), "float32"))
    layer = layers.BatchNormalization(name="bn_r")
    layer(np.ones((2, 3), "float32"))
    with pytest.raises(ValueError, match=r"bn_r expects input with last dimension 3"):
        layer(np.ones((2, 4), "float32"))
    with pytest.raises(ValueError, match=r"bn_r: the mask must have one dimension less than "
                                         r"the inputs; received mask shape \(2, 3\)"):
        layer(np.ones((2, 3), "float32"), training=True, mask=np.ones((2, 3), bool))


def _fixture_config(version, class_name):
    import json
    import pathlib

    import h5py
    path = (pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "keras_files" /
            f"dense_bn_{version}.h5")
    with h5py.File(path, "r") as f:
        config = json.loads(f.attrs["model_config"])
    return next(layer["config"] for layer in config["config"]["layers"]
                if layer["class_name"] == class_name)


def test_config_equals_the_one_keras_3_saved():
    keras_config = _fixture_config("k3", "BatchNormalization")
    assert layers.BatchNormalization(name="batch_normalization").get_config() == keras_config
    assert layers.BatchNormalization.from_config(keras_config).get_config() == keras_config


def test_keras_2_config_loads():
    layer = layers.BatchNormalization.from_config(_fixture_config("k2", "BatchNormalization"))
    assert layer.axis == 1
    assert layer(np.ones((2, 12), "float32")).shape == (2, 12)
