import numpy as np
import pytest

import lamina
from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case
from tests.layers.merging.masking import X1, X1_MASK, X2, masked, output_mask

CASES = [
    LayerCase(layers.Concatenate, {}, [(2, 3), (2, 3)], (2, 6), trainable_weights=0,
              params=0, weight_shapes={}),
    LayerCase(layers.Concatenate, dict(axis=1), [(2, 3, 4), (2, 2, 4), (2, 1, 4)], (2, 6, 4),
              trainable_weights=0, params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_concatenate_harness(case, backend):
    run_layer_case(case)


def test_concatenate_matches_numpy(backend):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3, 4)).astype("float32"), \
        rng.standard_normal((2, 3, 2)).astype("float32")
    np.testing.assert_array_equal(layers.Concatenate()([a, b]).numpy(),
                                  np.concatenate([a, b], axis=-1))
    np.testing.assert_array_equal(layers.concatenate([a, a], axis=1).numpy(),
                                  np.concatenate([a, a], axis=1))


def test_concatenate_masks(backend):
    # Keras 3's merging_test.test_concatenate_with_mask: an unmasked input counts as valid
    out = layers.Concatenate(axis=1)([masked(X1, X1_MASK), masked(X2)])
    np.testing.assert_allclose(out.numpy()[0], np.concatenate([X1[0], X2[0]]))
    np.testing.assert_array_equal(output_mask(out), [[0, 1, 0, 1, 1, 1, 1, 1]])
    out = layers.Concatenate(axis=2)([masked(X1, X1_MASK), masked(X2)])
    np.testing.assert_array_equal(output_mask(out), [[1, 1, 1, 1]])
    assert output_mask(layers.Concatenate()([masked(X1), masked(X2)])) is None


def test_concatenate_symbolic_shape():
    a, b = lamina.layers.Input(shape=(3, 4)), lamina.layers.Input(shape=(3, 5))
    assert layers.Concatenate()([a, b]).shape == (None, 3, 9)


def test_concatenate_rejects_mismatched_shapes():
    with pytest.raises(ValueError, match=r"cat: inputs must have matching shapes except "
                                         r"along axis -1; received shapes \(1, 2, 5\), "
                                         r"\(1, 1, 4\)"):
        layers.Concatenate(name="cat")([np.ones((1, 2, 5), "float32"),
                                        np.ones((1, 1, 4), "float32")])


def test_concatenate_rejects_mixed_ranks():
    with pytest.raises(ValueError, match=r"inputs must all have one rank; received shapes "
                                         r"\(2, 3\), \(2, 3, 1\)"):
        layers.Concatenate()([np.ones((2, 3), "float32"), np.ones((2, 3, 1), "float32")])


def test_concatenate_rejects_axis_out_of_range():
    with pytest.raises(ValueError, match=r"argument 'axis' 3 is out of range for inputs of "
                                         r"rank 2"):
        layers.Concatenate(axis=3)([np.ones((2, 3), "float32")] * 2)


def test_concatenate_rejects_non_int_axis():
    with pytest.raises(ValueError, match=r"argument 'axis' must be an int; received '1'"):
        layers.Concatenate(axis="1")
