import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.AlphaDropout, dict(rate=0.2), (2, 3), (2, 3), params=0),
    LayerCase(layers.AlphaDropout, dict(rate=0.1, noise_shape=(None, 1, 4), seed=1),
              (2, 3, 4), (2, 3, 4), params=0),
]

ALPHA_P = -1.6732632423543772 * 1.0507009873554805


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_alpha_dropout_harness(case, backend):
    run_layer_case(case)


def test_keeps_mean_and_variance_of_standard_normal_inputs(backend):
    rate = 0.2
    x = np.random.default_rng(0).standard_normal((400, 400)).astype("float32")
    y = layers.AlphaDropout(rate, seed=2)(x, training=True).numpy()
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1) < 0.02
    a = ((1 - rate) * (1 + rate * ALPHA_P ** 2)) ** -0.5
    b = -a * ALPHA_P * rate
    dropped = np.isclose(y, a * ALPHA_P + b)
    assert abs(dropped.mean() - rate) < 0.01
    np.testing.assert_allclose(y[~dropped], a * x[~dropped] + b, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(layers.AlphaDropout(rate)(x).numpy(), x)


def test_rejects_bad_arguments():
    with pytest.raises(ValueError, match=r"ad: argument 'rate' must be a number in \[0, 1\)"):
        layers.AlphaDropout(2, name="ad")
    with pytest.raises(ValueError, match=r"ad2: argument 'noise_shape' must be a tuple"):
        layers.AlphaDropout(0.1, noise_shape="x", name="ad2")


def test_a_noise_shape_that_does_not_fit_the_input_raises():
    # Found by the differential fuzzer: the mask of shape (1, 4) broadcast a (5, 1) input
    # to (5, 4) in training mode, while inference kept (5, 1).
    layer = layers.AlphaDropout(0.1, noise_shape=(None, 1, 4), seed=1, name="ad")
    x = np.ones((2, 5, 1), "float32")
    with pytest.raises(ValueError, match=r"ad: argument 'noise_shape' must have one entry "
                                         r"per dimension of the input, each 1, None or the "
                                         r"input's size; received noise_shape \(None, 1, 4\) "
                                         r"for input shape \(2, 5, 1\)"):
        layer(x, training=True)
    with pytest.raises(ValueError, match=r"received noise_shape \(None, 4\)"):
        layers.AlphaDropout(0.1, noise_shape=(None, 4), name="ad3")(x, training=True)
