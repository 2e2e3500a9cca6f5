"""RandAugment: harness case, picks per op, value range kept, seeds, graph == eager,
inference identity, argument errors."""
import numpy as np
import pytest

import lamina
from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [LayerCase(layers.RandAugment, dict(num_ops=2, factor=0.3, seed=1), (2, 6, 6, 3),
                   (2, 6, 6, 3), params=0)]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_harness(case, backend):
    run_layer_case(case)


X = np.random.default_rng(2).uniform(0, 255, (4, 8, 8, 3)).astype("float32")


def test_zero_ops_is_identity_and_ops_stay_in_value_range():
    np.testing.assert_allclose(layers.RandAugment(num_ops=0, seed=1)(X).numpy(), X)
    changed = 0
    for seed in range(6):
        y = layers.RandAugment(num_ops=3, factor=0.8, seed=seed)(X).numpy()
        assert y.min() >= -1e-3 and y.max() <= 255 + 1e-3
        changed += not np.allclose(y, X)
    assert changed >= 5


def test_one_op_applies_the_same_augmentation_to_the_whole_batch():
    # AutoContrast (pick 9) and Equalization (10) are deterministic: when one is picked,
    # every image equals that layer's output; check over seeds that at least one pick
    # landed there and that the batch was treated as a whole.
    auto, equal = layers.AutoContrast()(X).numpy(), layers.Equalization()(X).numpy()
    hits = 0
    for seed in range(30):
        y = layers.RandAugment(num_ops=1, seed=seed)(X).numpy()
        per_image = [np.allclose(y[i], auto[i], atol=1e-3) for i in range(4)]
        per_image_eq = [np.allclose(y[i], equal[i], atol=1e-3) for i in range(4)]
        assert len(set(per_image)) == 1 or len(set(per_image_eq)) == 1
        hits += all(per_image) or all(per_image_eq)
    assert hits >= 1


def test_seeds_repeat_graph_equals_eager_inference_identity():
    def make():
        return layers.RandAugment(num_ops=2, seed=4)
    np.testing.assert_array_equal(make()(X).numpy(), make()(X).numpy())
    eager, traced = make(), make()
    np.testing.assert_allclose(lamina.jit(lambda x: traced(x))(X).numpy(), eager(X).numpy(),
                               rtol=1e-5, atol=1e-3)
    np.testing.assert_array_equal(make()(X, training=False).numpy(), X)


@pytest.mark.parametrize("kwargs, match", [
    (dict(num_ops=-1), r"r: argument 'num_ops' must be a non-negative int; received -1"),
    (dict(factor=1.5), r"r: argument 'factor' must be a number or a pair of numbers in "
                       r"\[0, 1\]"),
    (dict(value_range=(1, 2, 3)), r"r: argument 'value_range' must be a list of two"),
])
def test_argument_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        layers.RandAugment(name="r", **kwargs)
