import numpy as np
import pytest

import lamina
from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.Identity, {}, (2, 3), (2, 3), trainable_weights=0, params=0),
    LayerCase(layers.Identity, {}, (2, 3, 4), (2, 3, 4), trainable_weights=0, params=0,
              id="Identity(rank3)"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_identity_harness(case, backend):
    run_layer_case(case)


def test_identity_returns_inputs_and_mask(backend):
    ids = np.array([[3, 0]])
    x = layers.Embedding(5, 2, mask_zero=True)(ids)
    y = layers.Identity()(x)
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    np.testing.assert_array_equal(y._keras_mask.numpy(), [[True, False]])


def test_identity_in_a_functional_model():
    inputs = lamina.Input((3,))
    model = lamina.Model(inputs, layers.Identity()(inputs))
    x = np.arange(6, dtype="float32").reshape(2, 3)
    np.testing.assert_array_equal(model(x).numpy(), x)
