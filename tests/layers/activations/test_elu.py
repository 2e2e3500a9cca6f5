import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.ELU, {}, (2, 3), (2, 3), params=0),
    LayerCase(layers.ELU, dict(alpha=0.5), (2, 3, 4), (2, 3, 4), params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_elu_harness(case, backend):
    run_layer_case(case)


@pytest.mark.parametrize("alpha", [1.0, 0.3, 2.0])
def test_elu_matches_numpy(alpha, backend):
    x = np.linspace(-5, 5, 21, dtype="float32").reshape(3, 7)
    expected = np.where(x > 0, x, alpha * np.expm1(x))
    np.testing.assert_allclose(layers.ELU(alpha)(x).numpy(), expected, rtol=1e-6, atol=1e-7)


def test_config_keeps_alpha():
    assert layers.ELU(0.7).get_config()["alpha"] == 0.7


def test_rejects_bad_alpha():
    with pytest.raises(ValueError, match=r"e: argument 'alpha' must be a finite number; "
                                         r"received 'one'"):
        layers.ELU("one", name="e")
