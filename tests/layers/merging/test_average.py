import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case
from tests.layers.merging.masking import X1, X1_MASK, X2, X2_MASK, masked, output_mask

CASES = [
    LayerCase(layers.Average, {}, [(2, 3), (2, 3)], (2, 3), trainable_weights=0, params=0,
              weight_shapes={}),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_average_harness(case, backend):
    run_layer_case(case)


def test_average_matches_numpy(backend):
    a, b, c = np.random.default_rng(0).standard_normal((3, 2, 4, 5)).astype("float32")
    np.testing.assert_allclose(layers.Average()([a, b, c]).numpy(), (a + b + c) / 3,
                               rtol=1e-6)
    np.testing.assert_allclose(layers.average([a, b]).numpy(), (a + b) / 2, rtol=1e-6)


def test_average_with_masks(backend):
    expected = [[[0, 0], [0.5, 1], [0.5, 1], [3, 4]]]
    out = layers.Average()([masked(X1, X1_MASK), masked(X2, X2_MASK)])
    np.testing.assert_allclose(out.numpy(), expected)
    np.testing.assert_array_equal(output_mask(out), [[0, 1, 1, 1]])
