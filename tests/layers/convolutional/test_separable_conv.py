import numpy as np
import pytest

from lamina import layers
from tests.layers.convolutional import reference as ref
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.SeparableConv2D, dict(filters=5, kernel_size=3, depth_multiplier=2),
              (2, 7, 7, 3), (2, 5, 5, 5), trainable_weights=3,
              weight_shapes={"depthwise_kernel": (3, 3, 3, 2),
                             "pointwise_kernel": (1, 1, 6, 5), "bias": (5,)}, params=89),
    LayerCase(layers.SeparableConv2D, dict(filters=4, kernel_size=3, strides=2,
                                           padding="same", use_bias=False),
              (2, 8, 8, 2), (2, 4, 4, 4), trainable_weights=2,
              weight_shapes={"depthwise_kernel": (3, 3, 2, 1),
                             "pointwise_kernel": (1, 1, 2, 4)}, params=26),
    LayerCase(layers.SeparableConv2D, dict(filters=2, kernel_size=2, activation="relu",
                                           data_format="channels_first",
                                           pointwise_regularizer="l2"),
              (2, 3, 5, 4), (2, 2, 4, 3), trainable_weights=3, params=20),
    LayerCase(layers.SeparableConv1D, dict(filters=4, kernel_size=3, depth_multiplier=2,
                                           padding="same"),
              (2, 9, 3), (2, 9, 4), trainable_weights=3,
              weight_shapes={"depthwise_kernel": (3, 3, 2), "pointwise_kernel": (1, 6, 4),
                             "bias": (4,)}, params=46),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_separable_harness(case, backend):
    run_layer_case(case)


def test_separable_conv2d_is_depthwise_then_pointwise(backend):
    x = np.random.default_rng(0).standard_normal((2, 8, 7, 3)).astype("float32")
    layer = layers.SeparableConv2D(4, 3, strides=2, padding="same", depth_multiplier=2,
                                   bias_initializer="ones")
    y = layer(x).numpy()
    dw, pw, b = [w.astype(np.float64) for w in layer.get_weights()]
    # rows: n 8, k 3, s 2 -> (0, 1); cols: n 7 -> (1, 1)
    mid = ref.depthwise_conv2d(x, dw, (2, 2), ((0, 1), (1, 1)))
    np.testing.assert_allclose(y, mid @ pw[0, 0] + b, rtol=1e-4, atol=1e-5)


def test_separable_conv1d_values(backend):
    x = np.random.default_rng(1).standard_normal((2, 10, 2)).astype("float32")
    layer = layers.SeparableConv1D(3, 3, dilation_rate=2, depth_multiplier=3)
    y = layer(x).numpy()
    dw, pw, b = [w.astype(np.float64) for w in layer.get_weights()]
    mid = ref.depthwise_conv2d(x[:, None], dw[None], dilation=(1, 2))[:, 0]
    np.testing.assert_allclose(y, mid @ pw[0] + b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kwargs, message", [
    (dict(filters=0, kernel_size=3), r"argument 'filters' must be a positive int"),
    (dict(filters=2, kernel_size=3, depth_multiplier=-2),
     r"argument 'depth_multiplier' must be a positive int; received -2"),
    (dict(filters=2, kernel_size=0), r"argument 'kernel_size' must be"),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=r"^sep: " + message):
        layers.SeparableConv2D(name="sep", **kwargs)


def test_config_and_aliases():
    config = layers.SeparableConv2D(3, 3).get_config()
    for key in ("depthwise_initializer", "pointwise_initializer", "depthwise_regularizer",
                "pointwise_regularizer", "depthwise_constraint", "pointwise_constraint"):
        assert key in config
    assert layers.SeparableConvolution2D is layers.SeparableConv2D
    assert layers.SeparableConvolution1D is layers.SeparableConv1D
