"""AugMix: harness case, convexity (the output lies between the input and augmentations
in value range), seeds, graph == eager, inference identity, argument errors."""
import numpy as np
import pytest

import lamina
from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [LayerCase(layers.AugMix, dict(num_chains=2, chain_depth=2, seed=1), (2, 6, 6, 3),
                   (2, 6, 6, 3), params=0)]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_harness(case, backend):
    run_layer_case(case)


X = np.random.default_rng(8).uniform(0, 255, (4, 8, 8, 3)).astype("float32")


def test_augmix_stays_in_range_and_changes_images():
    changed = 0
    for seed in range(4):
        y = layers.AugMix(seed=seed, value_range=(0, 255))(X).numpy()
        assert y.min() >= 0 and y.max() <= 255
        changed += not np.allclose(y, X)
    assert changed >= 3


def test_safe_ops_with_constant_images_keep_them():
    # every op of the safe set maps a constant image to a constant image (the geometric
    # ones fill by reflection; AutoContrast and Equalization keep a flat channel), so
    # the mix of the chains with the input is constant too.
    flat = np.full((2, 6, 6, 3), 77.0, "float32")
    y = layers.AugMix(all_ops=False, seed=3)(flat).numpy()
    assert np.allclose(y, y[:, :1, :1, :], atol=1e-3)


def test_seeds_repeat_graph_equals_eager_inference_identity():
    def make():
        return layers.AugMix(num_chains=2, chain_depth=2, seed=5)
    np.testing.assert_array_equal(make()(X).numpy(), make()(X).numpy())
    eager, traced = make(), make()
    np.testing.assert_allclose(lamina.jit(lambda x: traced(x))(X).numpy(), eager(X).numpy(),
                               rtol=1e-5, atol=1e-3)
    np.testing.assert_array_equal(make()(X, training=False).numpy(), X)


@pytest.mark.parametrize("kwargs, match", [
    (dict(num_chains=0), r"a: argument 'num_chains' must be a positive int; received 0"),
    (dict(chain_depth=1.5), r"a: argument 'chain_depth' must be a positive int"),
    (dict(alpha=-1), r"a: argument 'alpha' must be a positive number; received -1"),
    (dict(factor=5), r"a: argument 'factor' must be"),
])
def test_argument_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        layers.AugMix(name="a", **kwargs)
