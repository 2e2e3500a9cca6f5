import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.ActivityRegularization, {}, (2, 3), (2, 3), params=0),
    LayerCase(layers.ActivityRegularization, dict(l1=0.01, l2=0.02), (2, 3, 4), (2, 3, 4),
              params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_activity_regularization_harness(case, backend):
    run_layer_case(case)


def test_adds_the_penalty_and_returns_its_input(backend):
    x = np.random.default_rng(0).standard_normal((4, 3)).astype("float32")
    layer = layers.ActivityRegularization(l1=0.1, l2=0.2)
    np.testing.assert_array_equal(layer(x).numpy(), x)
    (loss,) = layer.losses
    # Keras 3 divides activity penalties by the batch size (here 4).
    np.testing.assert_allclose(loss.numpy(),
                               (0.1 * np.abs(x).sum() + 0.2 * (x ** 2).sum()) / 4, rtol=1e-5)
    layer(x)
    assert len(layer.losses) == 1                  # losses are per call, not accumulated


def test_config_has_l1_l2_only():
    config = layers.ActivityRegularization(l1=0.5).get_config()
    assert (config["l1"], config["l2"]) == (0.5, 0.0)
    assert "activity_regularizer" not in config


def test_rejects_bad_factors():
    with pytest.raises(ValueError, match=r"ar: argument 'l1' must be a non-negative, finite "
                                         r"number; received -1"):
        layers.ActivityRegularization(l1=-1, name="ar")
    with pytest.raises(ValueError, match=r"argument 'l2' must be a non-negative"):
        layers.ActivityRegularization(l2="x")
