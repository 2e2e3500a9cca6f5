"""Keras 3's split of a random image layer into ``get_random_transformation`` (the draw)
and ``transform_images`` (applying a given draw), checked against Keras 3.15.1's numbers,
and the Keras phrases the image layers' errors carry."""
import numpy as np
import pytest

from lamina import layers

X = (np.arange(2 * 3 * 4 * 2, dtype="float32").reshape(2, 3, 4, 2) * 7) % 11

# Keras 3.15.1 (JAX): RandomContrast(0.5, value_range=(0, 10)).transform_images(X, t)
KERAS_CONTRAST = [
    2.29167, 6.08333, 3.79167, 7.58333, 5.29167, 3.58333, 6.79167, 5.08333, 2.79167,
    6.58333, 4.29167, 2.58333, 5.79167, 4.08333, 7.29167, 5.58333, 3.29167, 7.08333,
    4.79167, 3.08333, 6.29167, 4.58333, 2.29167, 6.08333, 2.08333, 10.0, 6.58333, 0.29167,
    10.0, 4.79167, 0.0, 9.29167, 3.58333, 0.0, 8.08333, 1.79167, 10.0, 6.29167, 0.58333,
    10.0, 5.08333, 0.0, 9.58333, 3.29167, 0.0, 7.79167, 2.08333, 10.0]
# ... and with data_format="channels_first" on X[0] (one image) with factor 2
KERAS_CONTRAST_FIRST = [
    0.0, 8.75, 0.75, 10.0, 6.75, 0.0, 10.0, 4.75, 0.0, 10.0, 3.125, 0.0, 9.125, 1.125,
    10.0, 7.125, 0.0, 10.0, 5.5, 0.0, 10.0, 3.5, 0.0, 9.5]


def test_random_contrast_transform_images_matches_keras():
    layer = layers.RandomContrast(0.5, value_range=(0, 10))
    factor = np.array([0.5, 1.5], "float32").reshape(2, 1, 1, 1)
    got = layer.transform_images(X, {"contrast_factor": factor})
    np.testing.assert_allclose(got.numpy().ravel(), KERAS_CONTRAST, atol=1e-4)
    np.testing.assert_array_equal(
        layer.transform_images(X, {"contrast_factor": factor}, training=False).numpy(), X)
    first = layers.RandomContrast(0.5, value_range=(0, 10), data_format="channels_first")
    got = first.transform_images(X[0], {"contrast_factor": np.full((1, 1, 1), 2.0)})
    np.testing.assert_allclose(got.numpy().ravel(), KERAS_CONTRAST_FIRST, atol=1e-4)


def test_random_contrast_draw_shapes_and_call_agree():
    layer = layers.RandomContrast((0.2, 0.4), value_range=(0, 10), seed=3)
    draw = layer.get_random_transformation(X)["contrast_factor"].numpy()
    assert draw.shape == (2, 1, 1, 1)
    assert np.all((draw >= 0.8) & (draw <= 1.4))
    idle = layer.get_random_transformation(X[0], training=False)["contrast_factor"]
    np.testing.assert_array_equal(idle.numpy(), np.zeros((1, 1, 1)))
    # a call draws as get_random_transformation does, from the same seed
    called = layers.RandomContrast((0.2, 0.4), value_range=(0, 10), seed=3)(X).numpy()
    again = layers.RandomContrast((0.2, 0.4), value_range=(0, 10), seed=3)
    expected = again.transform_images(X, again.get_random_transformation(X)).numpy()
    np.testing.assert_allclose(called, expected, rtol=1e-6)


def test_mix_up_transform_images_matches_keras():
    im = np.arange(8, dtype="float32").reshape(2, 2, 2, 1)
    layer = layers.MixUp()
    got = layer.transform_images(im, {"mix_weight": np.array([0.25, 0.5], "float32"),
                                      "permutation_order": np.array([1, 0])})
    # Keras 3.15.1 (JAX)
    np.testing.assert_allclose(got.numpy().ravel(), [3, 4, 5, 6, 2, 3, 4, 5])
    draw = layer.get_random_transformation(im)
    assert draw["mix_weight"].shape == (2,) and draw["permutation_order"].shape == (2,)
    assert sorted(draw["permutation_order"].numpy().tolist()) == [0, 1]
    one = layer.transform_images(im[0], {"mix_weight": 1, "permutation_order": [0]})[0]
    np.testing.assert_array_equal(one.numpy(), im[0])


@pytest.mark.parametrize("kwargs, match", [
    (dict(factor=1.1), r"bright: argument 'factor' must be a number or a pair of numbers "
                       r"in \[-1, 1\]; received 1.1 \(The `factor` argument should be a "
                       r"number or a list of two numbers in that range.\)"),
    (dict(factor=0.1, value_range=[10]),
     r"bright: argument 'value_range' must be a pair of numbers \(low, high\); received "
     r"\[10\] \(The `value_range` argument should be a list of two numbers.\)"),
])
def test_brightness_errors_carry_keras_phrases(kwargs, match):
    with pytest.raises(ValueError, match=match):
        layers.RandomBrightness(name="bright", **kwargs)


def test_rank_error_carries_keras_phrase():
    with pytest.raises(ValueError, match=r"bright expects input of rank at least 3 \(batch, "
                                         r"height, width, channels\) or one image without "
                                         r"the batch axis \(Expected the input image to be "
                                         r"rank 3 or 4\); received shape \(10, 10\)"):
        layers.RandomBrightness(0.1, name="bright")(np.ones((10, 10), "float32"))
