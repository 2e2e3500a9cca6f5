import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case
from tests.layers.merging.masking import X1_MASK, X2_MASK, masked, output_mask

CASES = [
    LayerCase(layers.Maximum, {}, [(2, 3), (2, 3)], (2, 3), trainable_weights=0, params=0,
              weight_shapes={}),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_maximum_harness(case, backend):
    run_layer_case(case)


def test_maximum_matches_numpy(backend):
    a, b, c = np.random.default_rng(0).standard_normal((3, 2, 4, 5)).astype("float32")
    np.testing.assert_array_equal(layers.Maximum()([a, b, c]).numpy(),
                                  np.maximum(np.maximum(a, b), c))
    np.testing.assert_array_equal(layers.maximum([a, b]).numpy(), np.maximum(a, b))


def test_maximum_with_masks(backend):
    # Keras 3: a masked-out entry takes no part, the other input decides it
    x1 = [[[0, 0], [-1, -2], [0, 0], [-3, -4]]]
    x2 = [[[0, 0], [0, 0], [-1, -2], [-3, -4]]]
    out = layers.Maximum()([masked(x1, X1_MASK), masked(x2)])
    np.testing.assert_allclose(out.numpy(), [[[0, 0], [0, 0], [-1, -2], [-3, -4]]])
    assert output_mask(out) is None
    out = layers.Maximum()([masked(x1, X1_MASK), masked(x2, X2_MASK)])
    np.testing.assert_allclose(out.numpy(), [[[0, 0], [-1, -2], [-1, -2], [-3, -4]]])
    np.testing.assert_array_equal(output_mask(out), [[0, 1, 1, 1]])
