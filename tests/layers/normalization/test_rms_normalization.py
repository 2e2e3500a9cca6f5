import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case
from tests.layers.keras11.reference import check_against_keras

CASES = [
    LayerCase(layers.RMSNormalization, {}, (2, 3, 4), (2, 3, 4), trainable_weights=1,
              weight_shapes={"scale": (4,)}, params=4),
    LayerCase(layers.RMSNormalization, dict(axis=[1, 2], epsilon=1e-3), (2, 3, 4), (2, 3, 4),
              trainable_weights=1, weight_shapes={"scale": (3, 4)}, params=12),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_rms_normalization_harness(case):
    run_layer_case(case)


def test_matches_keras():
    check_against_keras("rms_normalization", layers.RMSNormalization())
    check_against_keras("rms_normalization_axes",
                        layers.RMSNormalization(axis=[-2, -1], epsilon=0.1))


def test_formula_axis_config_and_errors():
    layer = layers.RMSNormalization(epsilon=0.0)
    assert layer.get_config()["axis"] == -1
    y = layer(np.array([[3.0, 4.0]], "float32")).numpy()
    np.testing.assert_allclose(y, [[3 / np.sqrt(12.5), 4 / np.sqrt(12.5)]], rtol=1e-6)
    assert layer.get_config()["axis"] == [-1]            # Keras's built form
    with pytest.raises(TypeError, match="rms_normalization.*'axis' must be an int"):
        layers.RMSNormalization(axis="last")
    with pytest.raises(ValueError, match="argument 'axis' must name distinct axes"):
        layers.RMSNormalization(axis=3)(np.ones((2, 3), "float32"))
