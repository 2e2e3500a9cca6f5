"""AutoContrast, Solarization, RandomInvert, RandomGrayscale, RandomHue, RandomSaturation,
RandomColorDegeneration: harness cases, properties of the draws, seeds, dict inputs and
argument errors (Keras's numbers: test_augment_reference.py)."""
import numpy as np
import pytest

import lamina
from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case


def _images(rng, shape):
    return rng.uniform(0, 255, size=shape).astype("float32")


CASES = [
    LayerCase(layers.AutoContrast, dict(), (2, 4, 5, 3), (2, 4, 5, 3), params=0,
              make_input=_images, trainable_weights=0),
    LayerCase(layers.AutoContrast, dict(value_range=(0, 1)), (2, 4, 5, 1), (2, 4, 5, 1),
              params=0),
    LayerCase(layers.Solarization, dict(addition_factor=0.2, threshold_factor=(0.3, 0.6),
                                        seed=2), (2, 4, 5, 3), (2, 4, 5, 3), params=0),
    LayerCase(layers.RandomInvert, dict(factor=0.5, seed=1), (2, 4, 5, 3), (2, 4, 5, 3),
              params=0),
    LayerCase(layers.RandomGrayscale, dict(factor=0.7, seed=1), (2, 4, 5, 3), (2, 4, 5, 3),
              params=0),
    LayerCase(layers.RandomHue, dict(factor=0.4, seed=1), (2, 4, 5, 3), (2, 4, 5, 3),
              params=0),
    LayerCase(layers.RandomSaturation, dict(factor=(0.2, 0.7), seed=1), (2, 4, 5, 3),
              (2, 4, 5, 3), params=0),
    LayerCase(layers.RandomColorDegeneration, dict(factor=0.5, value_range=(0, 1)),
              (2, 4, 5, 3), (2, 4, 5, 3), params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_harness(case, backend):
    run_layer_case(case)


X = np.random.default_rng(3).uniform(0, 255, (16, 5, 6, 3)).astype("float32")


def test_random_invert_inverts_a_share_of_the_images():
    y = layers.RandomInvert(factor=(0.5, 0.5), seed=4)(X).numpy()
    inverted = np.all(np.isclose(y, 255 - X, atol=1e-3), axis=(1, 2, 3))
    kept = np.all(np.isclose(y, X), axis=(1, 2, 3))
    assert np.all(inverted | kept) and 2 <= inverted.sum() <= 14


def test_random_grayscale_makes_channels_equal_for_chosen_images():
    y = layers.RandomGrayscale(0.5, seed=2)(X).numpy()
    gray = np.all(np.isclose(y[..., :1], y, atol=1e-3), axis=(1, 2, 3))
    kept = np.all(np.isclose(y, X), axis=(1, 2, 3))
    assert np.all(gray | kept) and 1 <= gray.sum() <= 15


def test_solarization_inverts_above_a_threshold_in_range():
    y = layers.Solarization(threshold_factor=(0.5, 0.5), seed=1)(X).numpy()
    # threshold ~ uniform(0.5, 127.5): dark pixels kept, bright ones become 255 - x
    assert np.all((np.isclose(y, X, atol=1e-3)) | np.isclose(y, 255 - X, atol=1e-3))
    assert np.all(np.isclose(y[X > 128], 255 - X[X > 128], atol=1e-3))


def test_hue_keeps_value_and_saturation_and_shifts_hue_within_factor():
    from lamina.ops import image
    x = X / 255.0
    y = layers.RandomHue(0.2, value_range=(0, 1), seed=3)(x).numpy()
    hx, hy = image.rgb_to_hsv(x).numpy(), image.rgb_to_hsv(np.clip(y, 0, 1)).numpy()
    np.testing.assert_allclose(hy[..., 2], hx[..., 2], atol=1e-4)
    shift = np.abs(((hy[..., 0] - hx[..., 0]) + 0.5) % 1.0 - 0.5)
    colourful = hx[..., 1] > 0.2
    assert np.all(shift[colourful] <= 0.1 + 1e-3)
    assert shift[colourful].max() > 0.005


def test_saturation_scales_saturation_per_image():
    from lamina.ops import image
    x = X / 255.0
    y = layers.RandomSaturation((0.3, 0.3), value_range=(0, 1))(x).numpy()
    hx, hy = image.rgb_to_hsv(x).numpy(), image.rgb_to_hsv(y).numpy()
    np.testing.assert_allclose(hy[..., 1], np.clip(hx[..., 1] * 0.3 / 0.7, 0, 1), atol=1e-4)


def test_color_degeneration_stays_between_image_and_gray():
    y = layers.RandomColorDegeneration((0.0, 1.0), seed=1)(X).numpy()
    gray = (X @ np.array([0.2989, 0.587, 0.114]))[..., None]
    t = (y - X) / (gray - X)
    t = t[np.abs(gray - X) > 1.0]
    assert t.min() >= -1e-3 and t.max() <= 1 + 1e-3


@pytest.mark.parametrize("make", [
    lambda: layers.RandomInvert(0.5, seed=7), lambda: layers.RandomGrayscale(seed=7),
    lambda: layers.RandomHue(0.5, seed=7), lambda: layers.RandomSaturation(0.5, seed=7),
    lambda: layers.RandomColorDegeneration(0.5, seed=7),
    lambda: layers.Solarization(0.3, 0.5, seed=7)])
def test_seeds_repeat_and_graph_draws_as_eager(make):
    a, b = make(), make()
    np.testing.assert_array_equal(a(X).numpy(), b(X).numpy())
    eager, traced = make(), make()
    np.testing.assert_allclose(lamina.jit(lambda x: traced(x))(X).numpy(),
                               eager(X).numpy(), rtol=1e-6, atol=1e-4)
    np.testing.assert_array_equal(make()(X, training=False).numpy(), X)


def test_dict_inputs_pass_labels_and_reject_other_keys():
    labels = np.arange(16)
    out = layers.RandomInvert(seed=1)({"images": X, "labels": labels})
    np.testing.assert_array_equal(out["labels"].numpy(), labels)
    assert out["images"].shape == X.shape
    with pytest.raises(NotImplementedError, match=r"inv: dict inputs with key "
                       r"'bounding_boxes' are not supported by RandomInvert"):
        layers.RandomInvert(name="inv")({"images": X, "bounding_boxes": {}})
    with pytest.raises(ValueError, match="inv2: a dict input needs the key 'images'"):
        layers.RandomInvert(name="inv2")({"labels": labels})
    with pytest.raises(ValueError, match=r"ac: the images must have rank 3 \(one image\) "
                       r"or 4"):
        layers.AutoContrast(name="ac")(np.zeros((2, 3), "float32"))


@pytest.mark.parametrize("make, match", [
    (lambda: layers.AutoContrast(value_range=(0,), name="x"),
     r"x: argument 'value_range' must be a list of two numbers; received \(0,\)"),
    (lambda: layers.Solarization(addition_factor=1.5, name="x"),
     r"x: argument 'addition_factor' must be a number or a pair of numbers in \[0, 1\]"),
    (lambda: layers.Solarization(threshold_factor=(0.1, 2), name="x"),
     r"x: argument 'threshold_factor' must be"),
    (lambda: layers.RandomInvert(factor=-0.5, name="x"),
     r"x: argument 'factor' must be a number or a pair of numbers in \[0, 1\]; "
     r"received -0.5"),
    (lambda: layers.RandomGrayscale(factor=2, name="x"),
     r"x: argument 'factor' must be a number in \[0, 1\]; received 2"),
    (lambda: layers.RandomHue(factor=(0.1, 0.2, 0.3), name="x"), r"x: argument 'factor'"),
    (lambda: layers.RandomSaturation(factor=1.5, name="x"),
     r"x: argument 'factor' must be a number or a pair of numbers in \[-1, 1\]"),
    (lambda: layers.RandomColorDegeneration(factor="a", name="x"), r"x: argument 'factor'"),
])
def test_argument_errors(make, match):
    with pytest.raises(ValueError, match=match):
        make()
