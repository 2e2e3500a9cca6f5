"""RandomShear, RandomPerspective, Equalization: harness cases, the sampled maps against
ops.image (itself checked against Keras), seeds, graph == eager, argument errors
(Equalization's Keras numbers: test_augment_reference.py)."""
import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.ops import image
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.RandomShear, dict(x_factor=0.3, y_factor=0.2, seed=1), (2, 5, 6, 3),
              (2, 5, 6, 3), params=0),
    LayerCase(layers.RandomPerspective, dict(factor=0.5, scale=0.4, seed=1), (2, 5, 6, 2),
              (2, 5, 6, 2), params=0),
    LayerCase(layers.Equalization, dict(bins=16), (2, 5, 6, 3), (2, 5, 6, 3), params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_harness(case, backend):
    run_layer_case(case)


X = np.random.default_rng(9).uniform(0, 255, (6, 7, 8, 3)).astype("float32")


@pytest.mark.parametrize("fill_mode", ["reflect", "constant", "wrap", "nearest"])
def test_shear_is_keras_affine_transform_with_a_random_sign(fill_mode):
    y = layers.RandomShear(x_factor=(0.3, 0.3), y_factor=(0.1, 0.1), fill_mode=fill_mode,
                           fill_value=9.0, seed=2)(X).numpy()
    options = [image.affine_transform(X, [1, s * 0.3, 0, s * 0.1, 1, 0, 0, 0] * 1,
                                      fill_mode=fill_mode, fill_value=9.0).numpy()
               for s in (1.0, -1.0)]
    signs = []
    for i in range(len(X)):
        match = [np.allclose(y[i], o[i], atol=1e-3) for o in options]
        assert any(match)
        signs.append(match[0])
    assert len(set(signs)) == 2


def test_perspective_identity_when_scale_or_probability_is_zero():
    np.testing.assert_allclose(layers.RandomPerspective(scale=0.0, seed=1)(X).numpy(), X,
                               atol=1e-3)
    np.testing.assert_array_equal(layers.RandomPerspective(factor=0.0, seed=1)(X).numpy(), X)
    y = layers.RandomPerspective(factor=(1.0, 1.0), scale=0.5, fill_value=-1.0,
                                 seed=3)(X).numpy()
    assert not np.allclose(y, X)
    # the top-left corner never moves: pixel (0, 0) maps onto itself
    np.testing.assert_allclose(y[:, 0, 0], X[:, 0, 0], atol=1e-2)


def test_equalization_spreads_a_narrow_histogram_and_is_identity_in_inference():
    x = np.random.default_rng(1).uniform(100, 120, (2, 8, 8, 1)).astype("float32")
    y = layers.Equalization()(x).numpy()
    assert y.min() < 10 and y.max() > 245
    np.testing.assert_array_equal(layers.Equalization()(x, training=False).numpy(), x)
    flat = np.full((1, 4, 4, 1), 50.0, "float32")
    np.testing.assert_array_equal(layers.Equalization()(flat).numpy(), flat)


@pytest.mark.parametrize("make", [lambda: layers.RandomShear(0.4, 0.4, seed=7),
                                  lambda: layers.RandomPerspective(seed=7)])
def test_seeds_repeat_and_graph_draws_as_eager(make):
    np.testing.assert_array_equal(make()(X).numpy(), make()(X).numpy())
    eager, traced = make(), make()
    np.testing.assert_allclose(lamina.jit(lambda x: traced(x))(X).numpy(), eager(X).numpy(),
                               rtol=1e-5, atol=1e-3)
    np.testing.assert_array_equal(make()(X, training=False).numpy(), X)


@pytest.mark.parametrize("make, error, match", [
    (lambda: layers.RandomShear(x_factor=1.5, name="x"), ValueError,
     r"x: argument 'x_factor' must be a number in \[0, 1\] or a pair"),
    (lambda: layers.RandomShear(fill_mode="mirror", name="x"), NotImplementedError,
     r"x: unknown fill_mode 'mirror'; expected one of"),
    (lambda: layers.RandomShear(interpolation="bicubic", name="x"), NotImplementedError,
     r"x: unknown interpolation 'bicubic'"),
    (lambda: layers.RandomShear(fill_value="a", name="x"), ValueError,
     r"x: argument 'fill_value' must be a number"),
    (lambda: layers.RandomPerspective(scale=2.0, name="x"), ValueError,
     r"x: argument 'scale' must be a number in \[0, 1\]; received 2.0"),
    (lambda: layers.RandomPerspective(factor=3.0, name="x"), ValueError,
     r"x: argument 'factor' must be"),
    (lambda: layers.Equalization(bins=0, name="x"), ValueError,
     r"x: argument 'bins' must be a positive int; received 0"),
])
def test_argument_errors(make, error, match):
    with pytest.raises(error, match=match):
        make()
