import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.Permute, dict(dims=(2, 1)), (2, 3, 4), (2, 4, 3), trainable_weights=0,
              params=0, weight_shapes={}),
    LayerCase(layers.Permute, dict(dims=(3, 1, 2)), (2, 3, 4, 5), (2, 5, 3, 4),
              trainable_weights=0, params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_permute_harness(case, backend):
    run_layer_case(case)


def test_permute_matches_numpy(backend):
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 5)).astype("float32")
    y = layers.Permute((2, 3, 1))(x).numpy()
    np.testing.assert_array_equal(y, np.transpose(x, (0, 2, 3, 1)))


@pytest.mark.parametrize("bad", [(0, 1), (1, 1), (1, 3), (2,), "12", 3])
def test_permute_rejects_non_permutations(bad):
    with pytest.raises(ValueError, match=r"argument 'dims' must be a permutation of 1..n "
                                         r"\(1-indexed; the batch axis 0 is not included\)"):
        layers.Permute(bad)


def test_permute_rejects_wrong_rank():
    with pytest.raises(ValueError, match=r"pm expects input of rank 3; received shape "
                                         r"\(2, 3\)"):
        layers.Permute((2, 1), name="pm")(np.zeros((2, 3), "float32"))


@pytest.mark.parametrize("bad", [(0, 1, 2), (1, 4, 2)])
def test_permute_error_carries_keras_phrase(bad):
    with pytest.raises(ValueError, match=r"Invalid permutation argument `dims` for Permute "
                                         r"Layer"):
        layers.Permute(bad)
