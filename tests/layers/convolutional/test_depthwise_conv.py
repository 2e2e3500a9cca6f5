import numpy as np
import pytest

from lamina import layers
from lamina.errors import ShapeError
from tests.layers.convolutional import reference as ref
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.DepthwiseConv2D, dict(kernel_size=3, depth_multiplier=2),
              (2, 7, 7, 3), (2, 5, 5, 6), trainable_weights=2,
              weight_shapes={"kernel": (3, 3, 3, 2), "bias": (6,)}, params=60),
    LayerCase(layers.DepthwiseConv2D, dict(kernel_size=(3, 3), strides=2, padding="same",
                                           use_bias=False),
              (2, 8, 7, 4), (2, 4, 4, 4), trainable_weights=1,
              weight_shapes={"kernel": (3, 3, 4, 1)}, params=36),
    LayerCase(layers.DepthwiseConv2D, dict(kernel_size=2, data_format="channels_first",
                                           activation="relu", depthwise_regularizer="l2"),
              (2, 3, 5, 6), (2, 3, 4, 5), trainable_weights=2, params=15),
    LayerCase(layers.DepthwiseConv1D, dict(kernel_size=3, depth_multiplier=2, padding="same"),
              (2, 8, 3), (2, 8, 6), trainable_weights=2,
              weight_shapes={"kernel": (3, 3, 2), "bias": (6,)}, params=24),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_depthwise_harness(case, backend):
    run_layer_case(case)


@pytest.mark.parametrize("kwargs, pads", [
    (dict(depth_multiplier=2), ((0, 0), (0, 0))),
    (dict(strides=2, padding="same"), ((1, 1), (0, 1))),        # n 7 -> (1, 1), n 8 -> (0, 1)
    (dict(dilation_rate=(1, 2), padding="same", depth_multiplier=3), ((1, 1), (2, 2))),
])
def test_depthwise_conv2d_values(kwargs, pads, backend):
    x = np.random.default_rng(0).standard_normal((2, 7, 8, 3)).astype("float32")
    layer = layers.DepthwiseConv2D(3, bias_initializer="ones", **kwargs)
    y = layer(x).numpy()
    k, b = layer.get_weights()
    strides = (kwargs.get("strides", 1),) * 2
    dilation = kwargs.get("dilation_rate", (1, 1))
    expected = ref.depthwise_conv2d(x, k.astype(np.float64), strides, pads, dilation) + b
    np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-5)


def test_depthwise_output_channel_order(backend):
    """Output channel c * depth_multiplier + m is input channel c with kernel[..., c, m]."""
    x = np.zeros((1, 3, 3, 2), "float32")
    x[..., 1] = 1.0
    layer = layers.DepthwiseConv2D(3, depth_multiplier=2, use_bias=False)
    layer(x)
    k = np.zeros((3, 3, 2, 2), "float32")
    k[..., 1, 0], k[..., 1, 1] = 1.0, 2.0
    layer.set_weights([k])
    np.testing.assert_allclose(layer(x).numpy().reshape(-1), [0, 0, 9, 18])


def test_depthwise_conv1d_values(backend):
    x = np.random.default_rng(1).standard_normal((2, 9, 2)).astype("float32")
    layer = layers.DepthwiseConv1D(3, strides=2, padding="same", depth_multiplier=2)
    y = layer(x).numpy()
    k, b = layer.get_weights()
    expected = ref.depthwise_conv2d(x[:, None], k[None].astype(np.float64), (1, 2),
                                    ((0, 0), (1, 1)))[:, 0] + b
    np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-5)


def test_rank_error_names_the_layer():
    with pytest.raises(ShapeError, match=r"^dw expects input of rank 4 \(batch, height, "
                                         r"width, channels\); received shape \(2, 5, 3\)$"):
        layers.DepthwiseConv2D(3, name="dw")(np.zeros((2, 5, 3), "float32"))


@pytest.mark.parametrize("kwargs, message", [
    (dict(kernel_size=3, depth_multiplier=0), r"argument 'depth_multiplier' must be a "
                                              r"positive int; received 0"),
    (dict(kernel_size=3, padding="causal"), r"argument 'padding' must be 'valid' or 'same'"),
    (dict(kernel_size=3, strides=2, dilation_rate=2), r"strides > 1 cannot be combined"),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=r"^dw: " + message):
        layers.DepthwiseConv2D(name="dw", **kwargs)


def test_config_uses_depthwise_argument_names():
    config = layers.DepthwiseConv2D(3, depth_multiplier=2).get_config()
    assert config["depth_multiplier"] == 2
    assert config["depthwise_initializer"]["class_name"] == "GlorotUniform"
    assert "kernel_initializer" not in config and "filters" not in config


def test_errors_carry_keras_phrases():
    # Keras 3.15.1's depthwise_conv_test.py matches these phrases.
    with pytest.raises(ValueError, match=r"Invalid value for argument `depth_multiplier`. "
                                         r"Expected a strictly positive value. Received "
                                         r"depth_multiplier=0."):
        layers.DepthwiseConv1D(depth_multiplier=0, kernel_size=1)
    layer = layers.DepthwiseConv1D(11, strides=5, padding="valid")
    with pytest.raises(ValueError, match=r"Computed output size would be zero or negative."):
        layer(np.zeros((4, 10, 3), "float32"))
