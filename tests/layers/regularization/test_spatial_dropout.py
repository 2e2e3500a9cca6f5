import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.SpatialDropout1D, dict(rate=0.5), (2, 3, 4), (2, 3, 4), params=0),
    LayerCase(layers.SpatialDropout2D, dict(rate=0.5, seed=1), (2, 3, 3, 4), (2, 3, 3, 4),
              params=0),
    LayerCase(layers.SpatialDropout2D, dict(rate=0.3, data_format="channels_first"),
              (2, 4, 3, 3), (2, 4, 3, 3), params=0),
    LayerCase(layers.SpatialDropout3D, dict(rate=0.5), (2, 2, 2, 2, 3), (2, 2, 2, 2, 3),
              params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_spatial_dropout_harness(case, backend):
    run_layer_case(case)


@pytest.mark.parametrize("cls,shape,channel_axis", [
    (layers.SpatialDropout1D, (8, 5, 16), -1),
    (layers.SpatialDropout2D, (8, 3, 4, 16), -1),
    (layers.SpatialDropout3D, (8, 2, 3, 2, 16), -1),
])
def test_whole_channels_are_dropped(cls, shape, channel_axis, backend):
    y = cls(0.5, seed=3)(np.ones(shape, "float32"), training=True).numpy()
    per_channel = y.reshape(shape[0], -1, shape[-1])
    assert np.all(per_channel == per_channel[:, :1, :])       # one draw per (sample, channel)
    assert set(np.unique(y)) == {0.0, 2.0}


def test_channels_first_drops_axis_1(backend):
    y = layers.SpatialDropout2D(0.5, data_format="channels_first", seed=0)(
        np.ones((6, 8, 3, 3), "float32"), training=True).numpy()
    flat = y.reshape(6, 8, -1)
    assert np.all(flat == flat[:, :, :1])
    assert 0 < (y == 0).mean() < 1


def test_identity_in_inference(backend):
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype("float32")
    np.testing.assert_array_equal(layers.SpatialDropout1D(0.9)(x).numpy(), x)


def test_config_matches_keras():
    assert "data_format" not in layers.SpatialDropout1D(0.1).get_config()
    config = layers.SpatialDropout2D(0.1, seed=2).get_config()
    assert (config["rate"], config["seed"], config["data_format"]) == (0.1, 2,
                                                                       "channels_last")


def test_rejects_bad_arguments_and_inputs():
    with pytest.raises(ValueError, match=r"sd: argument 'data_format' must be 'channels_last' "
                                         r"or 'channels_first'; received 'NHWC'"):
        layers.SpatialDropout2D(0.5, data_format="NHWC", name="sd")
    with pytest.raises(ValueError, match=r"sd1: argument 'rate' must be a number in \[0, 1\)"):
        layers.SpatialDropout1D(1.5, name="sd1")
    with pytest.raises(ValueError, match=r"sd2 expects input of rank 4 \(batch, height, width, "
                                         r"channels\); received shape \(2, 3, 4\)"):
        layers.SpatialDropout2D(0.5, name="sd2")(np.ones((2, 3, 4), "float32"))
