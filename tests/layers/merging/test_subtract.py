import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case
from tests.layers.merging.masking import X1, X1_MASK, X2, X2_MASK, masked, output_mask

CASES = [
    LayerCase(layers.Subtract, {}, [(2, 3), (2, 3)], (2, 3), trainable_weights=0, params=0,
              weight_shapes={}),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_subtract_harness(case, backend):
    run_layer_case(case)


def test_subtract_matches_numpy(backend):
    a, b = np.random.default_rng(0).standard_normal((2, 2, 4, 5)).astype("float32")
    np.testing.assert_allclose(layers.Subtract()([a, b]).numpy(), a - b, rtol=1e-6)
    np.testing.assert_allclose(layers.subtract([b, a]).numpy(), b - a, rtol=1e-6)


def test_subtract_with_masks(backend):
    expected = [[[0, 0], [1, 2], [-1, -2], [0, 0]]]
    out = layers.Subtract()([masked(X1, X1_MASK), masked(X2, X2_MASK)])
    np.testing.assert_allclose(out.numpy(), expected)
    np.testing.assert_array_equal(output_mask(out), [[0, 1, 1, 1]])


@pytest.mark.parametrize("count", [1, 3])
def test_subtract_needs_exactly_two_inputs(count):
    with pytest.raises(ValueError, match=rf"sub: a `Subtract` layer should be called on "
                                         rf"exactly 2 inputs; received {count}"):
        layers.Subtract(name="sub")([np.zeros((2, 3), "float32")] * count)
