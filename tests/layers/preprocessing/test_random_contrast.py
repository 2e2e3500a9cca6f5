import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.RandomContrast, dict(factor=0.5), (2, 4, 5, 3), (2, 4, 5, 3),
              trainable_weights=0, weight_shapes={}, params=0),
    LayerCase(layers.RandomContrast, dict(factor=(0.1, 0.4), value_range=(0, 1), seed=3),
              (2, 4, 5, 1), (2, 4, 5, 1), params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_random_contrast_harness(case, backend):
    run_layer_case(case)


def test_contrast_scales_about_the_channel_mean(backend):
    x = np.random.default_rng(0).uniform(50, 200, (16, 4, 5, 3)).astype("float32")
    y = layers.RandomContrast(0.3, seed=1)(x, training=True).numpy()
    mean = x.mean(axis=(1, 2), keepdims=True)
    ratio = (y - mean) / (x - mean)                 # no clipping in this value range
    per_image = ratio.reshape(16, -1)
    np.testing.assert_allclose(per_image, np.broadcast_to(per_image[:, :1], per_image.shape),
                               rtol=1e-3)
    assert np.all((per_image >= 0.7 - 1e-4) & (per_image <= 1.3 + 1e-4))
    assert per_image[:, 0].std() > 0.05


def test_contrast_clips_to_value_range(backend):
    x = np.random.default_rng(0).uniform(0, 1, (8, 4, 4, 1)).astype("float32")
    y = layers.RandomContrast((0.0, 1.0), value_range=(0, 1), seed=2)(x, training=True)
    assert y.numpy().min() >= 0 and y.numpy().max() <= 1
    np.testing.assert_array_equal(layers.RandomContrast(0.5)(x, training=False).numpy(), x)


@pytest.mark.parametrize("kwargs, match", [
    (dict(factor=-0.2), r"con_x: argument 'factor' must be a number or a pair of numbers "
                        r"in \[0, 1\]; received -0.2"),
    (dict(factor=(0.2, 1.5)), r"argument 'factor' must be"),
    (dict(factor=0.2, value_range=(0, 1, 2)), r"argument 'value_range' must be a pair of "
                                              r"numbers \(low, high\); received \(0, 1, 2\)"),
])
def test_contrast_rejects_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        layers.RandomContrast(name="con_x", **kwargs)
