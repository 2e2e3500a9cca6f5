import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case
from tests.layers.merging.masking import X1, X1_MASK, X2, X2_MASK, masked, output_mask

CASES = [
    LayerCase(layers.Add, {}, [(2, 3), (2, 3)], (2, 3), trainable_weights=0, params=0,
              weight_shapes={}),
    LayerCase(layers.Add, {}, [(2, 4, 3), (2, 1, 3), (2, 4, 3)], (2, 4, 3),
              trainable_weights=0, params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_add_harness(case, backend):
    run_layer_case(case)


def test_add_matches_numpy(backend):
    a, b, c = np.random.default_rng(0).standard_normal((3, 2, 4, 5)).astype("float32")
    np.testing.assert_allclose(layers.Add()([a, b, c]).numpy(), a + b + c, rtol=1e-6)
    np.testing.assert_allclose(layers.add([a, b]).numpy(), a + b, rtol=1e-6)


def test_add_with_masks(backend):
    # Keras 3's merging_test.test_add_with_mask
    expected = [[[0, 0], [1, 2], [1, 2], [6, 8]]]
    out = layers.Add()([masked(X1, X1_MASK), masked(X2)])
    np.testing.assert_allclose(out.numpy(), expected)
    assert output_mask(out) is None
    out = layers.Add()([masked(X1, X1_MASK), masked(X2, X2_MASK)])
    np.testing.assert_allclose(out.numpy(), expected)
    np.testing.assert_array_equal(output_mask(out), [[0, 1, 1, 1]])
