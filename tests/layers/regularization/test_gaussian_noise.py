import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.GaussianNoise, dict(stddev=0.1), (2, 3), (2, 3), params=0),
    LayerCase(layers.GaussianNoise, dict(stddev=0.5, seed=2), (2, 3, 4), (2, 3, 4), params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_gaussian_noise_harness(case, backend):
    run_layer_case(case)


def test_training_adds_noise_of_the_given_stddev(backend):
    x = np.random.default_rng(0).standard_normal((300, 300)).astype("float32")
    noise = layers.GaussianNoise(0.3, seed=1)(x, training=True).numpy() - x
    assert abs(noise.mean()) < 0.01 and abs(noise.std() - 0.3) < 0.01
    np.testing.assert_array_equal(layers.GaussianNoise(0.3)(x).numpy(), x)


def test_seeded_layers_repeat(backend):
    x = np.zeros((4, 5), "float32")
    a = layers.GaussianNoise(1.0, seed=4)(x, training=True).numpy()
    np.testing.assert_array_equal(a, layers.GaussianNoise(1.0, seed=4)(x, training=True).numpy())


def test_rejects_bad_stddev():
    with pytest.raises(ValueError, match=r"gn: argument 'stddev' must be a non-negative, "
                                         r"finite number; received -1"):
        layers.GaussianNoise(-1, name="gn")
    with pytest.raises(ValueError, match=r"argument 'stddev' must be a non-negative"):
        layers.GaussianNoise("big")
