import numpy as np
import pytest

import lamina
from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.Reshape, dict(target_shape=(3, 4)), (2, 12), (2, 3, 4),
              trainable_weights=0, params=0, weight_shapes={}),
    LayerCase(layers.Reshape, dict(target_shape=(-1, 2)), (2, 3, 4), (2, 6, 2),
              trainable_weights=0, params=0),
    LayerCase(layers.Reshape, dict(target_shape=(6,)), (2, 2, 3), (2, 6),
              trainable_weights=0, params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_reshape_harness(case, backend):
    run_layer_case(case)


def test_reshape_matches_numpy(backend):
    x = np.arange(2 * 24, dtype="float32").reshape(2, 4, 6)
    np.testing.assert_array_equal(layers.Reshape((3, -1, 2))(x).numpy(),
                                  x.reshape(2, 3, 4, 2))


def test_reshape_symbolic_infers_the_minus_one():
    out = layers.Reshape((-1, 2, 2))(lamina.layers.Input(shape=(12,)))
    assert out.shape == (None, 3, 2, 2)
    assert layers.Reshape((-1, 2)).compute_output_shape((None, 3, 4)) == (None, 6, 2)


def test_reshape_rejects_size_mismatch():
    with pytest.raises(ValueError, match=r"rs: cannot reshape samples of shape \(3, 4\) "
                                         r"\(12 values\) into target_shape \(5, 2\); received "
                                         r"input shape \(2, 3, 4\)"):
        layers.Reshape((5, 2), name="rs")(np.zeros((2, 3, 4), "float32"))


def test_reshape_rejects_indivisible_minus_one():
    with pytest.raises(ValueError, match=r"cannot reshape samples of shape \(7,\)"):
        layers.Reshape((-1, 2))(np.zeros((2, 7), "float32"))


def test_reshape_rejects_two_minus_ones():
    with pytest.raises(ValueError, match=r"argument 'target_shape' may contain at most one "
                                         r"-1; received \(-1, -1\)"):
        layers.Reshape((-1, -1))


@pytest.mark.parametrize("bad", [(2, -2), "ab", 2.5, (2, None)])
def test_reshape_rejects_bad_target_shape(bad):
    with pytest.raises(ValueError, match=r"argument 'target_shape' must be a tuple of "
                                         r"non-negative ints \(one may be -1\)"):
        layers.Reshape(bad)


def test_reshape_bad_target_shape_has_keras_phrases():
    with pytest.raises(ValueError, match=r"non-negative integer.*-1.*target_shape=\(-2, 5\)"):
        layers.Reshape(target_shape=(-2, 5))
    with pytest.raises(ValueError, match=r"at most one unknown dimension.*"
                                         r"target_shape=\(-1, -1, 5\)"):
        layers.Reshape(target_shape=(-1, -1, 5))


def test_reshape_accepts_zero_sizes_as_keras():
    # Keras 3.15.1: Reshape((0, 3)) of a (2, 0) batch gives shape (2, 0, 3).
    y = layers.Reshape((0, 3))(np.zeros((2, 0), "float32"))
    assert tuple(y.shape) == (2, 0, 3)
    with pytest.raises(ValueError, match="cannot reshape samples"):   # Keras raises too
        layers.Reshape((0, -1)).compute_output_shape((None, 0))


def test_reshape_symbolic_unknown_sizes():
    with pytest.raises(ValueError, match=r"cannot infer the -1 of target_shape \(-1, 2\) "
                                         r"for a symbolic input"):
        layers.Reshape((-1, 2))(lamina.layers.Input(shape=(None, 4)))
