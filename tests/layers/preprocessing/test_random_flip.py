import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.RandomFlip, dict(), (2, 4, 5, 3), (2, 4, 5, 3), trainable_weights=0,
              weight_shapes={}, params=0),
    LayerCase(layers.RandomFlip, dict(mode="horizontal", seed=2), (2, 4, 5, 1),
              (2, 4, 5, 1), params=0),
    LayerCase(layers.RandomFlip, dict(mode="vertical", data_format="channels_first"),
              (2, 3, 4, 5), (2, 3, 4, 5), params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_random_flip_harness(case, backend):
    run_layer_case(case)


def _images(shape=(64, 4, 5, 2)):
    return np.random.default_rng(0).standard_normal(shape).astype("float32")


@pytest.mark.parametrize("mode, flip", [
    ("horizontal", lambda im: im[:, ::-1]),
    ("vertical", lambda im: im[::-1]),
    ("horizontal_and_vertical", lambda im: im[::-1, ::-1]),
])
def test_flips_are_exact_mirror_images(backend, mode, flip):
    x = _images()
    y = layers.RandomFlip(mode, seed=4)(x, training=True).numpy()
    flipped = [np.array_equal(out, flip(im)) for im, out in zip(x, y)]
    kept = [np.array_equal(out, im) for im, out in zip(x, y)]
    assert all(f or k for f, k in zip(flipped, kept))
    assert 10 < sum(flipped) < 54                    # about half of 64


def test_flip_identity_unless_training_and_seeded_repeats(backend):
    x = _images()
    np.testing.assert_array_equal(layers.RandomFlip()(x, training=False).numpy(), x)
    a = layers.RandomFlip(seed=9)(x, training=True).numpy()
    np.testing.assert_array_equal(a, layers.RandomFlip(seed=9)(x, training=True).numpy())


def test_flip_works_on_one_image(backend):
    x = _images((4, 5, 2))
    y = layers.RandomFlip("horizontal", seed=1)(x, training=True).numpy()
    assert np.array_equal(y, x) or np.array_equal(y, x[:, ::-1])


def test_flip_rejects_unknown_mode():
    with pytest.raises(ValueError, match=r"flip_x: argument 'mode' must be one of "
                                         r"'horizontal', 'vertical', "
                                         r"'horizontal_and_vertical'; received 'diagonal'"):
        layers.RandomFlip("diagonal", name="flip_x")
