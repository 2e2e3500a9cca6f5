import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case
from tests.layers.merging.masking import X1, X1_MASK, X2, X2_MASK, masked, output_mask

CASES = [
    LayerCase(layers.Minimum, {}, [(2, 3), (2, 3)], (2, 3), trainable_weights=0, params=0,
              weight_shapes={}),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_minimum_harness(case, backend):
    run_layer_case(case)


def test_minimum_matches_numpy(backend):
    a, b, c = np.random.default_rng(0).standard_normal((3, 2, 4, 5)).astype("float32")
    np.testing.assert_array_equal(layers.Minimum()([a, b, c]).numpy(),
                                  np.minimum(np.minimum(a, b), c))
    np.testing.assert_array_equal(layers.minimum([a, b]).numpy(), np.minimum(a, b))


def test_minimum_with_masks(backend):
    out = layers.Minimum()([masked(X1, X1_MASK), masked(X2)])
    np.testing.assert_allclose(out.numpy(), [[[0, 0], [0, 0], [1, 2], [3, 4]]])
    assert output_mask(out) is None
    out = layers.Minimum()([masked(X1, X1_MASK), masked(X2, X2_MASK)])
    np.testing.assert_allclose(out.numpy(), [[[0, 0], [1, 2], [1, 2], [3, 4]]])
    np.testing.assert_array_equal(output_mask(out), [[0, 1, 1, 1]])
