import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.GaussianDropout, dict(rate=0.3), (2, 3), (2, 3), params=0),
    LayerCase(layers.GaussianDropout, dict(rate=0.5, seed=1), (2, 3, 4), (2, 3, 4), params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_gaussian_dropout_harness(case, backend):
    run_layer_case(case)


def test_training_multiplies_by_normal_noise_around_one(backend):
    x = np.full((300, 300), 2.0, "float32")
    factor = layers.GaussianDropout(0.2, seed=3)(x, training=True).numpy() / x
    assert abs(factor.mean() - 1) < 0.01
    assert abs(factor.std() - np.sqrt(0.2 / 0.8)) < 0.01       # stddev sqrt(rate/(1-rate))
    np.testing.assert_array_equal(layers.GaussianDropout(0.2)(x).numpy(), x)


def test_seeded_layers_repeat(backend):
    x = np.ones((4, 5), "float32")
    a = layers.GaussianDropout(0.4, seed=6)(x, training=True).numpy()
    np.testing.assert_array_equal(a, layers.GaussianDropout(0.4, seed=6)(x,
                                                                         training=True).numpy())


def test_rejects_bad_rate():
    with pytest.raises(ValueError, match=r"gd: argument 'rate' must be a number in \[0, 1\); "
                                         r"received 1.0"):
        layers.GaussianDropout(1.0, name="gd")
