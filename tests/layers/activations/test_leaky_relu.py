import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.LeakyReLU, {}, (2, 3), (2, 3), params=0),
    LayerCase(layers.LeakyReLU, dict(negative_slope=0.1), (2, 3, 4), (2, 3, 4), params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_leaky_relu_harness(case, backend):
    run_layer_case(case)


def test_default_slope_is_0_3(backend):
    x = np.array([[-10, -1, 0, 2]], "float32")
    np.testing.assert_allclose(layers.LeakyReLU()(x).numpy(), [[-3.0, -0.3, 0.0, 2.0]],
                               rtol=1e-6)


def test_keras_2_alpha_is_accepted():
    with pytest.warns(DeprecationWarning, match="'alpha' is deprecated"):
        layer = layers.LeakyReLU(alpha=0.1)
    assert layer.negative_slope == 0.1
    assert layer.get_config()["negative_slope"] == 0.1 and "alpha" not in layer.get_config()


def test_rejects_bad_slope():
    with pytest.raises(ValueError, match=r"lr: argument 'negative_slope' must be a "
                                         r"non-negative, finite number; received -0.3"):
        layers.LeakyReLU(-0.3, name="lr")
    with pytest.raises(ValueError, match=r"The negative_slope value of a Leaky ReLU layer "
                                         r"cannot be None"):
        layers.LeakyReLU(None)
