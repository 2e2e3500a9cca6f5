import numpy as np
import pytest

from lamina import layers, ops
from lamina.layers.preprocessing.random_zoom import zoom_coefficients
from tests.layers.harness import LayerCase, case_id, run_layer_case
from tests.layers.preprocessing import image_reference as ref

CASES = [
    LayerCase(layers.RandomZoom, dict(height_factor=0.2), (2, 5, 6, 3), (2, 5, 6, 3),
              trainable_weights=0, weight_shapes={}, params=0),
    LayerCase(layers.RandomZoom, dict(height_factor=(-0.3, -0.1), width_factor=0.2,
                                      fill_mode="constant", seed=3), (2, 5, 6, 1),
              (2, 5, 6, 1), params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_random_zoom_harness(case, backend):
    run_layer_case(case)


def _images(shape=(2, 5, 6, 2)):
    return np.random.default_rng(0).uniform(0, 1, shape).astype("float32")


def test_forced_zoom_matches_numpy_reference(backend):
    x = _images()
    layer = layers.RandomZoom(0.5, fill_mode="constant", fill_value=0.25)
    coeffs = zoom_coefficients(ops.convert_to_tensor(np.float32(1.5)),
                               ops.convert_to_tensor(np.float32(0.6)), 5, 6)
    y = layer.transform(ops.convert_to_tensor(x), *coeffs).numpy()
    want = ref.affine(x, [(0.6, 0, 2.5 * 0.4, 0, 1.5, 2 * -0.5)] * 2, fill_mode="constant",
                      fill_value=0.25)
    np.testing.assert_allclose(y, want, atol=1e-5)


def test_zoom_in_keeps_the_center_pixel(backend):
    x = _images((6, 5, 5, 1))
    y = layers.RandomZoom((-0.5, -0.2), seed=1)(x, training=True).numpy()
    np.testing.assert_allclose(y[:, 2, 2], x[:, 2, 2], atol=1e-6)
    assert not np.allclose(y, x)
    np.testing.assert_array_equal(
        y, layers.RandomZoom((-0.5, -0.2), seed=1)(x, training=True).numpy())


@pytest.mark.parametrize("kwargs, match", [
    (dict(height_factor=1.2), r"zoom_x: argument 'height_factor' must be a number or a pair "
                              r"of numbers in \[-1, 1\]; received 1.2"),
    (dict(height_factor=0.1, width_factor=(0.1, -2)), r"argument 'width_factor' must be"),
    (dict(height_factor=0.1, fill_mode="edge"), r"argument 'fill_mode' must be one of"),
])
def test_zoom_rejects_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        layers.RandomZoom(name="zoom_x", **kwargs)
