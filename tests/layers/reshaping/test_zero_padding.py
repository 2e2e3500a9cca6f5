"""ZeroPadding1D, ZeroPadding2D and ZeroPadding3D."""
import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.ZeroPadding1D, {}, (2, 3, 4), (2, 5, 4), trainable_weights=0, params=0,
              weight_shapes={}),
    LayerCase(layers.ZeroPadding1D, dict(padding=(1, 2), data_format="channels_first"),
              (2, 3, 4), (2, 3, 7), trainable_weights=0, params=0),
    LayerCase(layers.ZeroPadding2D, {}, (2, 3, 4, 2), (2, 5, 6, 2), trainable_weights=0,
              params=0, weight_shapes={}),
    LayerCase(layers.ZeroPadding2D, dict(padding=((1, 0), (2, 3)),
                                         data_format="channels_first"),
              (2, 2, 3, 4), (2, 2, 4, 9), trainable_weights=0, params=0),
    LayerCase(layers.ZeroPadding3D, dict(padding=1), (1, 2, 3, 4, 2), (1, 4, 5, 6, 2),
              trainable_weights=0, params=0, weight_shapes={}),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_zero_padding_harness(case, backend):
    run_layer_case(case)


def _x(shape):
    return np.random.default_rng(0).standard_normal(shape).astype("float32")


def test_zero_padding1d_matches_numpy(backend):
    x = _x((2, 3, 4))
    np.testing.assert_array_equal(layers.ZeroPadding1D((2, 1))(x).numpy(),
                                  np.pad(x, ((0, 0), (2, 1), (0, 0))))
    np.testing.assert_array_equal(layers.ZeroPadding1D(1, "channels_first")(x).numpy(),
                                  np.pad(x, ((0, 0), (0, 0), (1, 1))))


@pytest.mark.parametrize("padding, pairs", [(2, ((2, 2), (2, 2))), ((1, 3), ((1, 1), (3, 3))),
                                            (((0, 1), (2, 0)), ((0, 1), (2, 0)))])
def test_zero_padding2d_forms_match_numpy(padding, pairs, backend):
    x = _x((2, 3, 4, 2))
    layer = layers.ZeroPadding2D(padding)
    assert layer.padding == pairs
    np.testing.assert_array_equal(layer(x).numpy(), np.pad(x, ((0, 0), *pairs, (0, 0))))
    y = layers.ZeroPadding2D(padding, data_format="channels_first")(x).numpy()
    np.testing.assert_array_equal(y, np.pad(x, ((0, 0), (0, 0), *pairs)))


def test_zero_padding3d_matches_numpy(backend):
    x = _x((1, 2, 3, 4, 2))
    pairs = ((1, 0), (0, 2), (1, 1))
    np.testing.assert_array_equal(layers.ZeroPadding3D(pairs)(x).numpy(),
                                  np.pad(x, ((0, 0), *pairs, (0, 0))))
    assert layers.ZeroPadding3D((1, 2, 3)).padding == ((1, 1), (2, 2), (3, 3))


def test_zero_padding_config_uses_keras_forms():
    assert layers.ZeroPadding1D(3).get_config()["padding"] == (3, 3)
    config = layers.ZeroPadding2D(1).get_config()
    assert config["padding"] == ((1, 1), (1, 1)) and config["data_format"] == "channels_last"


@pytest.mark.parametrize("bad", [-1, (1, 2, 3), "1", (1.5, 1)])
def test_zero_padding1d_rejects_bad_padding(bad):
    with pytest.raises(ValueError, match=r"zp: argument 'padding' must be a non-negative int "
                                         r"or a tuple of 2 non-negative ints; received"):
        layers.ZeroPadding1D(bad, name="zp")


@pytest.mark.parametrize("bad", [(1, 2, 3), "ab", -1, ((1, 1), (1, -2)), ((1, 2, 3), 1)])
def test_zero_padding2d_rejects_bad_padding(bad):
    with pytest.raises(ValueError, match=r"argument 'padding' must be a non-negative int, a "
                                         r"tuple of 2 such ints or a tuple of 2 pairs "
                                         r"\(\(height_before, height_after\), \(width_before, "
                                         r"width_after\)\); received"):
        layers.ZeroPadding2D(bad)


def test_zero_padding_rejects_bad_data_format():
    with pytest.raises(ValueError, match=r"argument 'data_format' must be 'channels_last', "
                                         r"'channels_first' or None; received 'NCHW'"):
        layers.ZeroPadding2D(data_format="NCHW")


def test_zero_padding2d_rejects_wrong_rank():
    with pytest.raises(ValueError, match=r"expects input of rank 4 \(batch, height, width, "
                                         r"channels\); received shape \(2, 3, 4\)"):
        layers.ZeroPadding2D()(np.zeros((2, 3, 4), "float32"))
