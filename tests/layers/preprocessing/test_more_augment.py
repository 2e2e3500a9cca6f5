"""RandomColorJitter, RandomPosterization, RandomSharpness, RandomErasing,
RandomGaussianBlur: harness cases, properties of the draws, seeds, graph == eager and
argument errors (Keras's numbers: test_augment_reference.py)."""
import numpy as np
import pytest

import lamina
from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.RandomColorJitter, dict(brightness_factor=0.2, contrast_factor=0.3,
                                             saturation_factor=0.4, hue_factor=0.2, seed=1),
              (2, 4, 5, 3), (2, 4, 5, 3), params=0),
    LayerCase(layers.RandomPosterization, dict(factor=4, seed=1), (2, 4, 5, 3), (2, 4, 5, 3),
              params=0),
    LayerCase(layers.RandomSharpness, dict(factor=0.6, seed=1), (2, 4, 5, 3), (2, 4, 5, 3),
              params=0),
    LayerCase(layers.RandomErasing, dict(factor=0.5, seed=1), (2, 4, 5, 3), (2, 4, 5, 3),
              params=0),
    LayerCase(layers.RandomGaussianBlur, dict(factor=0.5, kernel_size=5, seed=1),
              (2, 6, 5, 2), (2, 6, 5, 2), params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_harness(case, backend):
    run_layer_case(case)


X = np.random.default_rng(5).uniform(0, 255, (12, 6, 7, 3)).astype("float32")


def test_posterization_keeps_a_drawn_number_of_bits():
    y = layers.RandomPosterization((2, 6), seed=3)(X).numpy()
    bits = []
    for img, out in zip(X, y):
        for b in range(2, 6):
            step = 2 ** (8 - b)
            if np.allclose(out, np.floor(np.floor(img) / step) * step):
                bits.append(b)
                break
        else:
            raise AssertionError("an image was not posterized to 2..5 bits")
    assert len(set(bits)) > 1


def test_sharpness_interpolates_between_smooth_and_identity():
    y = layers.RandomSharpness((0.5, 0.5))(X).numpy()
    np.testing.assert_allclose(y, X, rtol=1e-5, atol=1e-3)


def test_erasing_fills_one_box_per_erased_image():
    y = layers.RandomErasing(factor=(1.0, 1.0), scale=(0.1, 0.3), fill_value=-5.0,
                             value_range=(-10, 255), seed=2)(X).numpy()
    for img, out in zip(X, y):
        changed = np.all(out == -5.0, axis=-1)
        rows, cols = np.flatnonzero(changed.any(1)), np.flatnonzero(changed.any(0))
        assert changed[rows.min():rows.max() + 1, cols.min():cols.max() + 1].all()
        np.testing.assert_array_equal(out[~changed], img[~changed])
        assert changed.sum() <= 0.45 * 42


def test_gaussian_blur_preserves_the_mean_inside_and_applies_per_probability():
    y = layers.RandomGaussianBlur(factor=(0.5, 0.5), seed=4)(X).numpy()
    blurred = ~np.all(np.isclose(y, X), axis=(1, 2, 3))
    assert 1 <= blurred.sum() <= 11
    assert np.all(y[blurred].std(axis=(1, 2)) < X[blurred].std(axis=(1, 2)))


@pytest.mark.parametrize("make", [
    lambda: layers.RandomColorJitter(brightness_factor=0.3, hue_factor=0.3, seed=7),
    lambda: layers.RandomPosterization(5, seed=7), lambda: layers.RandomSharpness(0.9, seed=7),
    lambda: layers.RandomErasing(seed=7), lambda: layers.RandomGaussianBlur(seed=7)])
def test_seeds_repeat_and_graph_draws_as_eager(make):
    np.testing.assert_array_equal(make()(X).numpy(), make()(X).numpy())
    eager, traced = make(), make()
    np.testing.assert_allclose(lamina.jit(lambda x: traced(x))(X).numpy(), eager(X).numpy(),
                               rtol=1e-5, atol=1e-3)
    np.testing.assert_array_equal(make()(X, training=False).numpy(), X)


@pytest.mark.parametrize("make, match", [
    (lambda: layers.RandomPosterization(9, name="x"),
     r"x: argument 'factor' must be a number or a pair of numbers in \[1, 8\]; received 9"),
    (lambda: layers.RandomSharpness(-1, name="x"), r"x: argument 'factor' must be"),
    (lambda: layers.RandomErasing(scale=(1.5, 2), name="x"), r"x: argument 'scale' must be"),
    (lambda: layers.RandomErasing(fill_value=(1, 2), name="x"),
     r"x: argument 'fill_value' must be None, a number or a list of 3 numbers"),
    (lambda: layers.RandomGaussianBlur(kernel_size=4, name="x"),
     r"x: argument 'kernel_size' must be an odd int or a pair of odd ints; received 4"),
    (lambda: layers.RandomGaussianBlur(sigma=3.0, name="x"), r"x: argument 'sigma' must be"),
    (lambda: layers.RandomColorJitter(value_range=5, name="x"),
     r"x: argument 'value_range' must be a list of two numbers"),
])
def test_argument_errors(make, match):
    with pytest.raises(ValueError, match=match):
        make()
