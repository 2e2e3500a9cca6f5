import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.RepeatVector, dict(n=3), (2, 4), (2, 3, 4), trainable_weights=0,
              params=0, weight_shapes={}),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_repeat_vector_harness(case, backend):
    run_layer_case(case)


def test_repeat_vector_matches_numpy(backend):
    x = np.random.default_rng(0).standard_normal((2, 5)).astype("float32")
    np.testing.assert_array_equal(layers.RepeatVector(4)(x).numpy(),
                                  np.repeat(x[:, None, :], 4, axis=1))


def test_repeat_vector_rejects_non_int():
    with pytest.raises(TypeError, match=r"argument 'n' must be an int; received 2.0"):
        layers.RepeatVector(2.0)


def test_repeat_vector_rejects_non_positive():
    with pytest.raises(ValueError, match=r"argument 'n' must be a positive int; received 0"):
        layers.RepeatVector(0)


def test_repeat_vector_rejects_rank_3():
    with pytest.raises(ValueError, match=r"expects input of rank 2 \(batch, features\)"):
        layers.RepeatVector(2)(np.zeros((2, 3, 4), "float32"))


def test_repeat_vector_errors_carry_keras_phrases():
    for bad in ("3", 3.5):
        with pytest.raises(TypeError, match=r"Expected an integer value for `n`"):
            layers.RepeatVector(bad)
    with pytest.raises(ValueError, match=r"should be a positive integer"):
        layers.RepeatVector(-1)
