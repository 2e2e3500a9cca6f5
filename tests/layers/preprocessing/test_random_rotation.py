import math

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.layers.preprocessing.random_rotation import rotation_coefficients
from tests.layers.harness import LayerCase, case_id, run_layer_case
from tests.layers.preprocessing import image_reference as ref

CASES = [
    LayerCase(layers.RandomRotation, dict(factor=0.2), (2, 5, 6, 3), (2, 5, 6, 3),
              trainable_weights=0, weight_shapes={}, params=0),
    LayerCase(layers.RandomRotation, dict(factor=(-0.1, 0.3), fill_mode="constant",
                                          interpolation="nearest", seed=1, fill_value=2.0),
              (2, 5, 6, 1), (2, 5, 6, 1), params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_random_rotation_harness(case, backend):
    run_layer_case(case)


def _images(shape=(2, 5, 6, 2)):
    return np.random.default_rng(0).uniform(0, 1, shape).astype("float32")


def _rotate(layer, x, angle):
    """The layer's resampling at a forced angle (radians)."""
    coeffs = rotation_coefficients(ops.convert_to_tensor(np.float32(angle)), *x.shape[1:3])
    return layer.transform(ops.convert_to_tensor(x), *coeffs).numpy()


def _reference(x, angle, **kwargs):
    h, w = x.shape[1:3]
    c, s = math.cos(angle), math.sin(angle)
    x_off = ((w - 1) - (c * (w - 1) - s * (h - 1))) / 2
    y_off = ((h - 1) - (s * (w - 1) + c * (h - 1))) / 2
    return ref.affine(x, [(c, -s, x_off, s, c, y_off)] * len(x), **kwargs)


def test_quarter_turn_is_counter_clockwise_rot90(backend):
    x = _images((2, 5, 5, 2))
    y = _rotate(layers.RandomRotation(0.25), x, math.pi / 2)
    np.testing.assert_allclose(y, np.rot90(x, axes=(1, 2)), atol=1e-5)


@pytest.mark.parametrize("fill_mode", ["reflect", "wrap", "constant", "nearest"])
@pytest.mark.parametrize("interpolation", ["bilinear", "nearest"])
def test_rotation_matches_numpy_reference(backend, fill_mode, interpolation):
    x = _images()
    layer = layers.RandomRotation(0.2, fill_mode=fill_mode, interpolation=interpolation,
                                  fill_value=0.5)
    y = _rotate(layer, x, 0.7)
    want = _reference(x, 0.7, interpolation=interpolation, fill_mode=fill_mode,
                      fill_value=0.5)
    np.testing.assert_allclose(y, want, atol=1e-4)


def test_training_rotates_within_the_range_and_seeds_repeat(backend):
    x = _images((8, 7, 7, 1))
    y = layers.RandomRotation(0.1, seed=5)(x, training=True).numpy()
    assert not np.allclose(y, x)
    assert y.min() >= -1e-6 and y.max() <= 1 + 1e-6          # reflect: convex mixtures
    np.testing.assert_array_equal(
        y, layers.RandomRotation(0.1, seed=5)(x, training=True).numpy())
    np.testing.assert_array_equal(layers.RandomRotation(0.1)(x, training=False).numpy(), x)


def test_a_compiled_step_draws_fresh_angles(backend):
    x = ops.convert_to_tensor(_images())
    layer = layers.RandomRotation(0.3, seed=2)
    step = lamina.jit(lambda t: layer(t, training=True))
    assert not np.allclose(step(x).numpy(), step(x).numpy())


@pytest.mark.parametrize("kwargs, match", [
    (dict(factor=1.5), r"rot_x: argument 'factor' must be a number or a pair of numbers "
                       r"in \[-1, 1\]; received 1.5"),
    (dict(factor=(0.1, 0.2, 0.3)), r"argument 'factor' must be .*received \(0.1, 0.2, 0.3\)"),
    (dict(factor="big"), r"argument 'factor' must be"),
    (dict(factor=0.1, fill_mode="mirror"), r"argument 'fill_mode' must be one of 'reflect', "
                                           r"'wrap', 'constant', 'nearest'; received "
                                           r"'mirror'"),
    (dict(factor=0.1, interpolation="cubic"), r"argument 'interpolation' must be one of "
                                              r"'bilinear', 'nearest'; received 'cubic'"),
])
def test_rotation_rejects_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        layers.RandomRotation(name="rot_x", **kwargs)
