"""Cropping1D, Cropping2D and Cropping3D."""
import numpy as np
import pytest

import lamina
from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.Cropping1D, {}, (2, 5, 3), (2, 3, 3), trainable_weights=0, params=0,
              weight_shapes={}),
    LayerCase(layers.Cropping2D, dict(cropping=((1, 0), (1, 2))), (2, 4, 5, 3), (2, 3, 2, 3),
              trainable_weights=0, params=0, weight_shapes={}),
    LayerCase(layers.Cropping2D, dict(cropping=1, data_format="channels_first"),
              (2, 3, 4, 5), (2, 3, 2, 3), trainable_weights=0, params=0),
    LayerCase(layers.Cropping3D, {}, (1, 3, 4, 5, 2), (1, 1, 2, 3, 2), trainable_weights=0,
              params=0, weight_shapes={}),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_cropping_harness(case, backend):
    run_layer_case(case)


def _x(shape):
    return np.random.default_rng(0).standard_normal(shape).astype("float32")


def test_cropping1d_matches_numpy(backend):
    x = _x((2, 6, 3))
    np.testing.assert_array_equal(layers.Cropping1D((2, 1))(x).numpy(), x[:, 2:-1])
    np.testing.assert_array_equal(layers.Cropping1D((1, 0))(x).numpy(), x[:, 1:])


def test_cropping2d_matches_numpy(backend):
    x = _x((2, 5, 6, 3))
    np.testing.assert_array_equal(layers.Cropping2D(((1, 2), (0, 3)))(x).numpy(),
                                  x[:, 1:-2, :-3])
    np.testing.assert_array_equal(layers.Cropping2D((1, 2))(x).numpy(), x[:, 1:-1, 2:-2])
    y = layers.Cropping2D(((1, 0), (1, 1)), data_format="channels_first")(x).numpy()
    np.testing.assert_array_equal(y, x[:, :, 1:, 1:-1])


def test_cropping3d_matches_numpy(backend):
    x = _x((1, 4, 5, 6, 2))
    y = layers.Cropping3D(((1, 0), (0, 2), (1, 1)))(x).numpy()
    np.testing.assert_array_equal(y, x[:, 1:, :-2, 1:-1])


def test_cropping_symbolic_shape():
    out = layers.Cropping2D(((1, 1), (2, 0)))(lamina.layers.Input(shape=(None, 6, 3)))
    assert out.shape == (None, None, 4, 3)


def test_cropping1d_rejects_cropping_everything():
    with pytest.raises(ValueError, match=r"crop: argument 'cropping' \(2, 2\) removes 4 of "
                                         r"the 4 values of axis 1 \(steps\); it must leave at "
                                         r"least one. Received input shape \(2, 4, 3\)"):
        layers.Cropping1D(2, name="crop")(np.zeros((2, 4, 3), "float32"))


def test_cropping2d_rejects_cropping_everything():
    with pytest.raises(ValueError, match=r"argument 'cropping' \(\(0, 0\), \(3, 2\)\) removes "
                                         r"5 of the 5 values of axis 2 \(width\)"):
        layers.Cropping2D(((0, 0), (3, 2)))(np.zeros((1, 4, 5, 2), "float32"))


@pytest.mark.parametrize("bad", [-1, (1, 2, 3), (1, "a")])
def test_cropping1d_rejects_bad_cropping(bad):
    with pytest.raises(ValueError, match=r"argument 'cropping' must be a non-negative int or "
                                         r"a tuple of 2 non-negative ints"):
        layers.Cropping1D(bad)


def test_cropping3d_rejects_bad_cropping():
    with pytest.raises(ValueError, match=r"argument 'cropping' must be a non-negative int, a "
                                         r"tuple of 3 such ints or a tuple of 3 pairs"):
        layers.Cropping3D(((1, 1), (1, 1)))


def test_excessive_cropping_carries_keras_phrases():
    # Keras 3.15.1's cropping tests match these phrases (Cropping1D has its own).
    with pytest.raises(ValueError, match=r"`cropping` parameter of `Cropping1D` layer must be "
                                         r"smaller than"):
        layers.Cropping1D((3, 3))(np.zeros((3, 5, 7), "float32"))
    with pytest.raises(ValueError, match=r"Values in `cropping` argument should be smaller "
                                         r"than the corresponding spatial dimension of the "
                                         r"input."):
        layers.Cropping2D(((4, 5), (0, 0)))(np.zeros((1, 9, 5, 2), "float32"))
    with pytest.raises(ValueError, match=r"Values in `cropping` argument should be smaller "
                                         r"than the"):
        layers.Cropping3D(((8, 1), (1, 1), (1, 1)))(lamina.layers.Input(batch_shape=(3, 7, 9,
                                                                                     13, 5)))
