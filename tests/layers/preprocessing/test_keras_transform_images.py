"""``transform_images(images, transformation)`` of the batch-drawing augmentations (Keras
3's API: the layer's step with a given draw) and ``RandomBrightness._set_factor``; the
expected numbers are Keras 3.15's (JAX backend) for the same inputs."""
import numpy as np
import pytest

from lamina import layers

IMG = np.arange(18, dtype="float32").reshape(2, 3, 3, 1)
MASKS = np.zeros((2, 3, 3, 1), bool)
MASKS[0, :2, :2] = True
MASKS[1, 2, :] = True


def test_cut_mix_pastes_the_permuted_image_under_the_masks():
    out = layers.CutMix().transform_images(IMG, {
        "batch_masks": MASKS, "mix_weight": np.ones((2, 1, 1, 1)),
        "permutation_order": np.array([1, 0])})
    expected = [[[[9.0], [10.0], [2.0]], [[12.0], [13.0], [5.0]], [[6.0], [7.0], [8.0]]],
                [[[9.0], [10.0], [11.0]], [[12.0], [13.0], [14.0]], [[6.0], [7.0], [8.0]]]]
    np.testing.assert_array_equal(np.asarray(out), expected)
    assert str(out.dtype) == "float32"


def test_random_erasing_fills_masks_of_the_applied_images_only():
    out = layers.RandomErasing().transform_images(IMG, {
        "batch_masks": MASKS, "apply_erasing": np.array([True, False]), "fill_value": 7.0})
    expected = IMG.copy()
    expected[0, :2, :2] = 7.0
    np.testing.assert_array_equal(np.asarray(out), expected)


BLUR = [[[2.34759, 2.96607], [3.84681, 4.53901], [5.23121, 5.9234], [5.76355, 6.38202]],
        [[7.36096, 8.25445], [10.0, 11.0], [12.0, 13.0], [12.29589, 13.18938]],
        [[14.5089, 15.40239], [18.0, 19.0], [20.0, 21.0], [19.44383, 20.33732]],
        [[12.79069, 13.40917], [15.53476, 16.22695], [16.91915, 17.61135],
         [16.20665, 16.82512]]]


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_random_gaussian_blur_uses_the_given_sigmas(data_format):
    x = np.arange(32, dtype="float32").reshape(1, 4, 4, 2)
    expected = np.asarray([BLUR])
    if data_format == "channels_first":
        x, expected = np.transpose(x, (0, 3, 1, 2)), np.transpose(expected, (0, 3, 1, 2))
    layer = layers.RandomGaussianBlur(value_range=(0, 30), data_format=data_format)
    draw = {"blur_factor": np.array([0.5, 1.5], "float32"),
            "should_apply_blur": np.array([True])}
    np.testing.assert_allclose(np.asarray(layer.transform_images(x, draw)), expected,
                               atol=1e-4)
    draw["should_apply_blur"] = np.array([False])      # not blurred, still clipped (Keras)
    np.testing.assert_array_equal(np.asarray(layer.transform_images(x, draw)),
                                  np.clip(x, 0, 30))


def test_random_perspective_maps_start_points_to_end_points():
    y = np.arange(16, dtype="float32").reshape(1, 4, 4, 1)
    draw = {"apply_perspective": np.array([True]),
            "start_points": np.array([[[0.0, 0.0], [3.0, 0.0], [0.0, 3.0], [3.0, 3.0]]]),
            "end_points": np.array([[[0.0, 0.0], [2.0, 0.0], [0.0, 2.0], [2.0, 2.0]]])}
    out = layers.RandomPerspective().transform_images(y, draw)
    expected = [[0.0, 1.5, 3.0, 0.0], [6.0, 7.5, 9.0, 0.0], [12.0, 13.5, 15.0, 0.0],
                [0.0, 0.0, 0.0, 0.0]]
    np.testing.assert_allclose(np.asarray(out)[0, :, :, 0], expected, atol=1e-4)


def test_random_elastic_transform_with_a_given_draw():
    x = np.zeros((8, 8, 1), "float32")
    x[3:5, 3:5] = 1.0
    layer = layers.RandomElasticTransform()
    draw = {"apply_transform": np.array([True]), "distortion_factor": np.float32(0.91),
            "seed": 42}
    out = np.asarray(layer.transform_images(x, draw))
    assert out.shape == x.shape
    assert not np.allclose(out, x)
    np.testing.assert_array_equal(np.asarray(layer.transform_images(x, draw)), out)
    draw["apply_transform"] = np.array([False])
    np.testing.assert_array_equal(np.asarray(layer.transform_images(x, draw)), x)


def test_random_brightness_set_factor():
    layer = layers.RandomBrightness(factor=0.5)
    layer._set_factor([0.3, -0.1])
    assert layer.factor == (-0.1, 0.3)
    for bad in ([0.1], "invalid_type", 1.5):
        with pytest.raises(ValueError, match="The `factor` argument should be a number"):
            layer._set_factor(bad)
