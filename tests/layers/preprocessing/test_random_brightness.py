import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.RandomBrightness, dict(factor=0.2), (2, 4, 5, 3), (2, 4, 5, 3),
              trainable_weights=0, weight_shapes={}, params=0),
    LayerCase(layers.RandomBrightness, dict(factor=(-0.1, 0.3), value_range=(1, 0), seed=4),
              (2, 4, 5, 1), (2, 4, 5, 1), params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_random_brightness_harness(case, backend):
    run_layer_case(case)


def test_brightness_adds_one_scaled_delta_per_image(backend):
    x = np.random.default_rng(0).uniform(60, 190, (16, 4, 5, 3)).astype("float32")
    y = layers.RandomBrightness(0.2, seed=1)(x, training=True).numpy()
    delta = (y - x).reshape(16, -1)
    np.testing.assert_allclose(delta, np.broadcast_to(delta[:, :1], delta.shape), atol=1e-3)
    assert np.all(np.abs(delta) <= 0.2 * 255 + 1e-3) and delta[:, 0].std() > 5


def test_brightness_clips_and_is_identity_at_inference(backend):
    x = np.random.default_rng(0).uniform(0, 1, (8, 4, 4, 1)).astype("float32")
    layer = layers.RandomBrightness((0.5, 1.0), value_range=(0, 1), seed=2)
    y = layer(x, training=True).numpy()
    assert y.min() >= 0.5 - 1e-6 and y.max() <= 1
    np.testing.assert_array_equal(layer(x, training=False).numpy(), x)
    assert layer.get_config()["value_range"] == [0, 1]


def test_brightness_rejects_bad_arguments():
    with pytest.raises(ValueError, match=r"br_x: argument 'factor' must be a number or a "
                                         r"pair of numbers in \[-1, 1\]; received 2"):
        layers.RandomBrightness(2, name="br_x")
    with pytest.raises(ValueError, match=r"br_y: argument 'value_range' must be a pair"):
        layers.RandomBrightness(0.1, value_range=5, name="br_y")
