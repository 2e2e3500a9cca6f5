import numpy as np
import pytest

from lamina import layers
from tests.layers.convolutional import reference as ref
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.Conv2DTranspose, dict(filters=5, kernel_size=3, strides=2,
                                           padding="same"),
              (2, 4, 4, 3), (2, 8, 8, 5), trainable_weights=2,
              weight_shapes={"kernel": (3, 3, 5, 3), "bias": (5,)}, params=140),
    LayerCase(layers.Conv2DTranspose, dict(filters=4, kernel_size=(3, 2), strides=(2, 3),
                                           output_padding=(1, 2)),
              (2, 3, 4, 2), (2, 8, 13, 4), trainable_weights=2,
              weight_shapes={"kernel": (3, 2, 4, 2), "bias": (4,)}, params=52),
    LayerCase(layers.Conv2DTranspose, dict(filters=3, kernel_size=2, strides=3,
                                           activation="sigmoid"),
              (2, 3, 3, 2), (2, 9, 9, 3), trainable_weights=2, params=27),
    LayerCase(layers.Conv2DTranspose, dict(filters=2, kernel_size=3, dilation_rate=2,
                                           data_format="channels_first", use_bias=False),
              (2, 3, 4, 5), (2, 2, 8, 9), trainable_weights=1,
              weight_shapes={"kernel": (3, 3, 2, 3)}, params=54),
    LayerCase(layers.Conv1DTranspose, dict(filters=4, kernel_size=3, strides=2,
                                           padding="same"),
              (2, 5, 3), (2, 10, 4), trainable_weights=2,
              weight_shapes={"kernel": (3, 4, 3), "bias": (4,)}, params=40),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_conv_transpose_harness(case, backend):
    run_layer_case(case)


# Keras's output length, by hand (k_eff = (k-1)*d + 1):
#   output_padding None: 'same' -> n*s, 'valid' -> n*s + max(k_eff - s, 0)
#   output_padding p:    (n-1)*s + k_eff - 2*pad + p, pad = k_eff // 2 ('same') or 0
# and where the output starts in the full scatter (TensorFlow's forward 'same' pads):
#   crop = ((n-1)*s + k_eff - out) // 2 for 'same', 0 for 'valid'.
GEOMETRY = [  # n, k, s, padding, output_padding, out, crop
    (4, 3, 2, "same", None, 8, 0),
    (3, 3, 2, "same", 0, 5, 1),
    (3, 3, 2, "same", 1, 6, 0),
    (3, 4, 2, "same", None, 6, 1),
    (3, 4, 2, "same", 1, 5, 1),
    (3, 3, 1, "same", None, 3, 1),
    (3, 3, 2, "valid", None, 7, 0),
    (3, 3, 2, "valid", 1, 8, 0),
    (3, 2, 3, "valid", None, 9, 0),      # k < s: the last row only gets the bias
    (3, 2, 3, "valid", 2, 10, 0),
    (3, 5, 2, "valid", 0, 9, 0),
]


@pytest.mark.parametrize("n, k, s, padding, output_padding, out, crop", GEOMETRY)
def test_conv2d_transpose_shape_and_values(n, k, s, padding, output_padding, out, crop,
                                           backend):
    x = np.random.default_rng(0).standard_normal((2, n, n + 1, 3)).astype("float32")
    layer = layers.Conv2DTranspose(2, k, strides=s, padding=padding,
                                   output_padding=output_padding, bias_initializer="ones")
    y = layer(x).numpy()
    out_w = layer.compute_output_shape(x.shape)[2]
    assert y.shape == (2, out, out_w, 2)
    assert layer.compute_output_shape((None, n, n + 1, 3)) == (None, out, out_w, 2)
    k_arr, b = layer.get_weights()
    crop_w = max((n * s + (k - 1) + 1 - out_w), 0) // 2 if padding == "same" else 0
    expected = ref.conv2d_transpose_scatter(x, k_arr.astype(np.float64), (s, s),
                                            (out, out_w), (crop, crop_w)) + b
    np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-5)


def test_conv2d_transpose_dilation(backend):
    x = np.random.default_rng(1).standard_normal((1, 3, 4, 2)).astype("float32")
    layer = layers.Conv2DTranspose(3, (2, 3), dilation_rate=(2, 1), padding="same")
    y = layer(x).numpy()
    k, b = layer.get_weights()
    # rows: k_eff 3, out 3, crop (2 + 3 - 3) // 2 = 1; cols: k_eff 3, crop 1
    expected = ref.conv2d_transpose_scatter(x, k.astype(np.float64), (1, 1), (3, 4), (1, 1),
                                            dilation=(2, 1)) + b
    np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-5)


def test_conv1d_transpose_matches_the_2d_scatter(backend):
    x = np.random.default_rng(2).standard_normal((2, 4, 3)).astype("float32")
    layer = layers.Conv1DTranspose(2, 3, strides=2, padding="valid", output_padding=1)
    y = layer(x).numpy()
    k, b = layer.get_weights()
    assert y.shape == (2, 10, 2)                          # (4-1)*2 + 3 + 1
    expected = ref.conv2d_transpose_scatter(x[:, None], k[None].astype(np.float64), (1, 2),
                                            (1, 10))[:, 0] + b
    np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-5)


def test_transpose_is_the_adjoint_of_conv(backend):
    """<conv(x), y> == <x, conv_transpose(y)> with the same kernel (no bias)."""
    rng = np.random.default_rng(3)
    conv = layers.Conv2D(4, 3, strides=2, padding="same", use_bias=False)
    x = rng.standard_normal((1, 8, 8, 3)).astype("float32")
    cx = conv(x).numpy()
    deconv = layers.Conv2DTranspose(3, 3, strides=2, padding="same", use_bias=False)
    y = rng.standard_normal(cx.shape).astype("float32")
    deconv(y)
    deconv.set_weights(conv.get_weights())              # (3, 3, 3, 4): (kh, kw, out, in)
    np.testing.assert_allclose(np.sum(cx * y), np.sum(x * deconv(y).numpy()), rtol=1e-4)


@pytest.mark.parametrize("kwargs, message", [
    (dict(filters=0, kernel_size=3), r"argument 'filters' must be a positive int"),
    (dict(filters=2, kernel_size=3, strides=2, output_padding=2),
     r"argument 'output_padding' must be smaller than 'strides' on every axis; received "
     r"output_padding=\(2, 2\), strides=\(2, 2\)"),
    (dict(filters=2, kernel_size=3, output_padding=-1),
     r"argument 'output_padding' must be an int or a tuple of 2 ints, all non-negative"),
    (dict(filters=2, kernel_size=3, padding="causal"), r"argument 'padding' must be"),
    (dict(filters=2, kernel_size=3, groups=2), r"unrecognized keyword argument"),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        layers.Conv2DTranspose(name="t", **kwargs)


def test_config_and_aliases():
    config = layers.Conv2DTranspose(2, 3, strides=2, output_padding=1).get_config()
    assert config["output_padding"] == (1, 1) and config["strides"] == (2, 2)
    assert "groups" not in config
    assert layers.Convolution2DTranspose is layers.Conv2DTranspose
    assert layers.Convolution1DTranspose is layers.Conv1DTranspose


@pytest.mark.parametrize("padding, output_padding", [("valid", None), ("same", None),
                                                     ("valid", 1), ("same", 1)])
def test_unknown_spatial_sizes_stay_unknown(padding, output_padding):
    # Keras 3.15.1: Input((None, None, 3)) -> Conv2DTranspose(2, ...) has shape
    # (None, None, None, 2); a model of it runs images of any size.
    import lamina
    x = lamina.layers.Input((None, None, 3))
    layer = layers.Conv2DTranspose(2, 3, strides=2, padding=padding,
                                   output_padding=output_padding)
    model = lamina.Model(x, layer(x))
    assert model.output_shape == (None, None, None, 2)
    image = np.random.default_rng(0).standard_normal((2, 5, 4, 3)).astype("float32")
    fixed = layers.Conv2DTranspose(2, 3, strides=2, padding=padding,
                                   output_padding=output_padding)
    fixed(image)
    fixed.set_weights(layer.get_weights())
    np.testing.assert_allclose(model.predict(image, verbose=0), fixed(image).numpy(),
                               rtol=1e-5, atol=1e-6)


def test_unknown_spatial_sizes_train_in_graph_mode():
    import lamina
    x = lamina.layers.Input((None, None, 3))
    model = lamina.Model(x, layers.Conv2DTranspose(2, 3, strides=2, padding="same")(x))
    model.compile("sgd", "mse")
    for size in (3, 5):
        image = np.ones((4, size, size + 1, 3), "float32")
        history = model.fit(image, np.zeros((4, 2 * size, 2 * size + 2, 2), "float32"),
                            verbose=0)
        assert np.isfinite(history.history["loss"][0])


def test_bad_arguments_carry_keras_phrases():
    with pytest.raises(ValueError, match=r"Invalid value for argument `filters`. Expected a "
                                         r"strictly positive value. Received filters=0."):
        layers.Conv1DTranspose(filters=0, kernel_size=1)
    with pytest.raises(ValueError, match=r"The `kernel_size` argument must be a tuple of 2 "
                                         r"integers. Received kernel_size=\(1, 0\), including "
                                         r"values \{0\} that do not satisfy `value > 0`"):
        layers.Conv2DTranspose(filters=2, kernel_size=(1, 0))
    with pytest.raises(ValueError, match=r"`output_padding` must be strictly less than "
                                         r"`strides`"):
        layers.Conv2DTranspose(filters=2, kernel_size=3, strides=(2, 3),
                               output_padding=(1, 3))
