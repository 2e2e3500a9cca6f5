import numpy as np
import pytest

import lamina
from lamina import layers, ops
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.Dropout, dict(rate=0.5), (2, 3), (2, 3), trainable_weights=0, params=0),
    LayerCase(layers.Dropout, dict(rate=0.2, noise_shape=(None, 1, 4), seed=3), (2, 3, 4),
              (2, 3, 4), params=0),
    LayerCase(layers.Dropout, dict(rate=0.0), (2, 3), (2, 3), params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_dropout_harness(case, backend):
    run_layer_case(case)


def _ones(shape):
    return np.ones(shape, "float32")


def test_identity_unless_training(backend):
    x = ops.convert_to_tensor(np.random.default_rng(0).standard_normal((4, 5)).astype("f4"))
    layer = layers.Dropout(0.5)
    assert layer(x) is x and layer(x, training=False) is x
    assert layers.Dropout(0.0)(x, training=True) is x


def test_training_drops_the_rate_and_scales_the_rest(backend):
    y = layers.Dropout(0.3, seed=1)(_ones((200, 500)), training=True).numpy()
    kept = y != 0
    assert abs(1 - kept.mean() - 0.3) < 0.01
    np.testing.assert_allclose(y[kept], 1 / 0.7, rtol=1e-6)


def test_seeded_layers_repeat_their_masks_and_calls_differ(backend):
    x = _ones((20, 30))
    a, b = layers.Dropout(0.5, seed=7), layers.Dropout(0.5, seed=7)
    first_a, first_b = a(x, training=True).numpy(), b(x, training=True).numpy()
    np.testing.assert_array_equal(first_a, first_b)
    assert not np.array_equal(first_a, a(x, training=True).numpy())
    assert not np.array_equal(first_a, layers.Dropout(0.5, seed=8)(x, training=True).numpy())


def test_unseeded_layers_follow_the_global_seed(backend):
    x = _ones((20, 30))
    lamina.random.set_seed(5)
    first = layers.Dropout(0.5)(x, training=True).numpy()
    lamina.random.set_seed(5)
    np.testing.assert_array_equal(first, layers.Dropout(0.5)(x, training=True).numpy())


def test_noise_shape_shares_the_mask(backend):
    y = layers.Dropout(0.5, noise_shape=(None, 1, 6), seed=2)(_ones((4, 5, 6)),
                                                              training=True).numpy()
    assert np.all(y == y[:, :1, :])
    assert 0 < (y == 0).mean() < 1


def test_training_is_inherited_from_the_model(backend):
    model = lamina.Sequential([lamina.Input((50,)), layers.Dropout(0.5, seed=0)])
    x = _ones((10, 50))
    assert (model(x, training=True).numpy() == 0).any()
    np.testing.assert_array_equal(model(x).numpy(), x)


def test_gradient_is_the_scaled_mask(backend):
    x = ops.convert_to_tensor(_ones((6, 7)))
    with lamina.GradientTape() as tape:
        tape.watch(x)
        y = layers.Dropout(0.25, seed=4)(x, training=True)
        loss = ops.sum(y)
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), y.numpy(), rtol=1e-6)


def test_config_round_trip_keeps_seed_and_noise_shape():
    config = layers.Dropout(0.1, noise_shape=[None, 1], seed=9).get_config()
    assert (config["rate"], config["seed"], config["noise_shape"]) == (0.1, 9, (None, 1))


def test_rejects_bad_arguments():
    with pytest.raises(ValueError, match=r"do: argument 'rate' must be a number in \[0, 1\); "
                                         r"received 1"):
        layers.Dropout(1, name="do")
    with pytest.raises(ValueError, match=r"argument 'rate' must be a number in \[0, 1\); "
                                         r"received -0.1"):
        layers.Dropout(-0.1)
    with pytest.raises(TypeError, match=r"argument 'rate' must be a number in \[0, 1\); "
                                        r"received 'half'"):
        layers.Dropout("half")
    with pytest.raises(ValueError, match=r"do_n: argument 'noise_shape' must be a tuple of "
                                         r"positive ints or None; received \(2, 0\)"):
        layers.Dropout(0.5, noise_shape=(2, 0), name="do_n")
    with pytest.raises(TypeError, match=r"do_s: argument 'seed' must be an int or None; "
                                        r"received 1.5"):
        layers.Dropout(0.5, seed=1.5, name="do_s")


def test_config_equals_the_one_keras_3_saved():
    from tests.layers.normalization.test_batch_normalization import _fixture_config
    keras_config = _fixture_config("k3", "Dropout")
    assert layers.Dropout(0.1, name="dropout").get_config() == keras_config
    k2 = layers.Dropout.from_config(_fixture_config("k2", "Dropout"))
    assert (k2.rate, k2.noise_shape, k2.seed) == (0.1, None, None)
