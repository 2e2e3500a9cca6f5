import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case
from tests.layers.keras11.reference import fixture

CASES = [
    LayerCase(layers.AdaptiveAveragePooling1D, dict(output_size=3), (2, 7, 2), (2, 3, 2)),
    LayerCase(layers.AdaptiveMaxPooling1D, dict(output_size=2), (2, 5, 3), (2, 2, 3)),
    LayerCase(layers.AdaptiveAveragePooling2D, dict(output_size=(2, 3)), (2, 5, 4, 2),
              (2, 2, 3, 2)),
    LayerCase(layers.AdaptiveMaxPooling2D, dict(output_size=2, data_format="channels_first"),
              (2, 3, 5, 4), (2, 3, 2, 2)),
    LayerCase(layers.AdaptiveAveragePooling3D, dict(output_size=2), (1, 3, 4, 5, 2),
              (1, 2, 2, 2, 2)),
    LayerCase(layers.AdaptiveMaxPooling3D, dict(output_size=(1, 2, 3)), (1, 3, 4, 5, 2),
              (1, 1, 2, 3, 2)),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_adaptive_pooling_harness(case):
    run_layer_case(case)


@pytest.mark.parametrize("key, cls, kwargs", [
    ("op_adaptive_average_1d", layers.AdaptiveAveragePooling1D, dict(output_size=3)),
    ("op_adaptive_max_1d", layers.AdaptiveMaxPooling1D, dict(output_size=3)),
    ("op_adaptive_average_2d", layers.AdaptiveAveragePooling2D, dict(output_size=(2, 3))),
    ("op_adaptive_max_2d_cf", layers.AdaptiveMaxPooling2D,
     dict(output_size=(3, 4), data_format="channels_first")),
    ("op_adaptive_average_3d", layers.AdaptiveAveragePooling3D, dict(output_size=2)),
    ("op_adaptive_max_3d", layers.AdaptiveMaxPooling3D, dict(output_size=(3, 2, 2))),
])
def test_layers_match_keras(key, cls, kwargs):
    entry = fixture(key)
    np.testing.assert_allclose(cls(**kwargs)(entry["x"]).numpy(), entry["y"], rtol=1e-6,
                               atol=1e-6)


def test_config_and_errors():
    layer = layers.AdaptiveAveragePooling2D(4)
    assert layer.get_config()["output_size"] == (4, 4)
    assert layer.get_config()["data_format"] == "channels_last"
    with pytest.raises(TypeError, match=r"output_size' must be an int or a \(height, width\)"):
        layers.AdaptiveMaxPooling2D((2, 2, 2))
    with pytest.raises(ValueError, match="output_size' must hold positive ints"):
        layers.AdaptiveMaxPooling1D(0)
    with pytest.raises(ValueError, match="data_format' must be 'channels_last'"):
        layers.AdaptiveAveragePooling3D(2, data_format="ndhwc")
