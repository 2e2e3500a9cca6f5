import numpy as np
import pytest

import lamina
from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case
from tests.layers.preprocessing import image_reference as ref

CASES = [
    LayerCase(layers.RandomCrop, dict(height=3, width=4, seed=1), (2, 6, 7, 3),
              (2, 3, 4, 3), trainable_weights=0, weight_shapes={}, params=0),
    LayerCase(layers.RandomCrop, dict(height=3, width=3), (2, 6, 6, 1), (2, 3, 3, 1),
              params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_random_crop_harness(case, backend):
    run_layer_case(case)


def _images(shape=(2, 8, 9, 3)):
    return np.random.default_rng(0).standard_normal(shape).astype("float32")


def _window_of(x, y):
    """The (top, left) where y is a window of x shared by the whole batch, else None."""
    h, w = y.shape[1:3]
    for top in range(x.shape[1] - h + 1):
        for left in range(x.shape[2] - w + 1):
            if np.array_equal(x[:, top:top + h, left:left + w], y):
                return top, left
    return None


def test_training_crops_a_random_window(backend):
    x = _images()
    layer = layers.RandomCrop(4, 5, seed=3)
    offsets = {_window_of(x, layer(x, training=True).numpy()) for _ in range(30)}
    assert None not in offsets and len(offsets) > 5


def test_seeded_layers_repeat_their_crops(backend):
    x = _images()
    a, b = layers.RandomCrop(4, 5, seed=3), layers.RandomCrop(4, 5, seed=3)
    np.testing.assert_array_equal(a(x, training=True).numpy(), b(x, training=True).numpy())


def test_inference_resizes_the_largest_aspect_window(backend):
    x = _images()
    y = layers.RandomCrop(4, 4)(x, training=False).numpy()           # window 8 x 8 at column 0, resized
    np.testing.assert_allclose(y, ref.resize(x[:, :, :8], 4, 4), rtol=1e-5, atol=1e-5)
    small = layers.RandomCrop(10, 4)(x, training=True).numpy()   # too small: window 8 x 3
    np.testing.assert_allclose(small, ref.resize(x[:, :, 3:6], 10, 4), rtol=1e-5, atol=1e-5)


def test_a_compiled_step_draws_fresh_crops(backend):
    x = lamina.ops.convert_to_tensor(_images())
    layer = layers.RandomCrop(4, 5, seed=3)
    step = lamina.jit(lambda t: layer(t, training=True))
    offsets = {_window_of(x.numpy(), step(x).numpy()) for _ in range(10)}
    assert None not in offsets and len(offsets) > 1


def test_random_crop_rejects_bad_arguments():
    with pytest.raises(ValueError, match=r"rc: argument 'width' must be a positive int; "
                                         r"received 0"):
        layers.RandomCrop(2, 0, name="rc")
    with pytest.raises(TypeError, match=r"rc2: argument 'seed' must be an int or None"):
        layers.RandomCrop(2, 2, seed="a", name="rc2")
