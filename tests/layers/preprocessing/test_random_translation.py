import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case
from tests.layers.preprocessing import image_reference as ref

CASES = [
    LayerCase(layers.RandomTranslation, dict(height_factor=0.2, width_factor=0.3),
              (2, 5, 6, 3), (2, 5, 6, 3), trainable_weights=0, weight_shapes={}, params=0),
    LayerCase(layers.RandomTranslation, dict(height_factor=(-0.2, 0.0), width_factor=0.1,
                                             fill_mode="wrap", interpolation="nearest",
                                             seed=5), (2, 5, 6, 1), (2, 5, 6, 1), params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_random_translation_harness(case, backend):
    run_layer_case(case)


def test_forced_shift_is_a_whole_pixel_roll(backend):
    x = np.random.default_rng(0).uniform(0, 1, (2, 5, 6, 1)).astype("float32")
    # factor (0.4, 0.4) of height 5: always shift down by exactly 2 rows
    layer = layers.RandomTranslation((0.4, 0.4), (0.0, 0.0), fill_mode="wrap", seed=1)
    y = layer(x, training=True).numpy()
    np.testing.assert_allclose(y, np.roll(x, 2, axis=1), atol=1e-5)
    want = ref.affine(x, [(1, 0, 0, 0, 1, -2.0)] * 2, fill_mode="wrap")
    np.testing.assert_allclose(y, want, atol=1e-5)


def test_translation_constant_fill_and_seeds(backend):
    x = np.ones((8, 6, 6, 1), "float32")
    layer = layers.RandomTranslation(0.5, 0.5, fill_mode="constant", fill_value=0.0, seed=2)
    y = layer(x, training=True).numpy()
    assert y.min() >= 0 and y.max() <= 1 + 1e-6 and y.min() < 1
    again = layers.RandomTranslation(0.5, 0.5, fill_mode="constant", seed=2)
    np.testing.assert_array_equal(y, again(x, training=True).numpy())


def test_translation_rejects_bad_factors():
    with pytest.raises(ValueError, match=r"tr_x: argument 'width_factor' must be a number "
                                         r"or a pair of numbers in \[-1, 1\]; received -3"):
        layers.RandomTranslation(0.1, -3, name="tr_x")
    with pytest.raises(ValueError, match=r"tr_y: argument 'interpolation' must be one of"):
        layers.RandomTranslation(0.1, 0.1, interpolation="area", name="tr_y")
