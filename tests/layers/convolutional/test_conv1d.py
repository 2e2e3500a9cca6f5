import numpy as np
import pytest

from lamina import layers
from lamina.errors import ShapeError
from tests.layers.convolutional import reference as ref
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.Conv1D, dict(filters=5, kernel_size=3, padding="causal",
                                  dilation_rate=2),
              (2, 10, 4), (2, 10, 5), trainable_weights=2,
              weight_shapes={"kernel": (3, 4, 5), "bias": (5,)}, params=65),
    LayerCase(layers.Conv1D, dict(filters=6, kernel_size=3, strides=2, padding="same",
                                  groups=3),
              (2, 9, 6), (2, 5, 6), trainable_weights=2,
              weight_shapes={"kernel": (3, 2, 6), "bias": (6,)}, params=42),
    LayerCase(layers.Conv1D, dict(filters=4, kernel_size=2, activation="relu",
                                  kernel_regularizer="l2"),
              (2, 7, 3), (2, 6, 4), trainable_weights=2, params=28),
    LayerCase(layers.Conv1D, dict(filters=2, kernel_size=3, data_format="channels_first",
                                  use_bias=False),
              (2, 3, 8), (2, 2, 6), trainable_weights=1,
              weight_shapes={"kernel": (3, 3, 2)}, params=18),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_conv1d_harness(case, backend):
    run_layer_case(case)


def _run(layer, x):
    y = layer(x).numpy()
    return y, [np.asarray(w, np.float64) for w in layer.get_weights()]


@pytest.mark.parametrize("kernel, dilation, left", [(3, 1, 2), (3, 2, 4), (2, 3, 3)])
def test_causal_pads_dilation_times_k_minus_1_on_the_left(kernel, dilation, left, backend):
    x = np.random.default_rng(0).standard_normal((2, 9, 3)).astype("float32")
    layer = layers.Conv1D(4, kernel, padding="causal", dilation_rate=dilation)
    y, (k, b) = _run(layer, x)
    np.testing.assert_allclose(y, ref.conv1d(x, k, pads=(left, 0), dilation=dilation) + b,
                               rtol=1e-4, atol=1e-5)


def test_causal_output_ignores_the_future(backend):
    x = np.random.default_rng(1).standard_normal((1, 8, 2)).astype("float32")
    layer = layers.Conv1D(3, 3, padding="causal", dilation_rate=2)
    y = layer(x).numpy()
    x2 = x.copy()
    x2[:, 5:] += 1.0                                # change steps 5.. only
    y2 = layer(x2).numpy()
    np.testing.assert_allclose(y[:, :5], y2[:, :5], rtol=1e-6)
    assert not np.allclose(y[:, 5:], y2[:, 5:])


def test_causal_with_stride(backend):
    x = np.random.default_rng(2).standard_normal((2, 9, 2)).astype("float32")
    layer = layers.Conv1D(2, 3, strides=2, padding="causal")
    y, (k, b) = _run(layer, x)
    assert y.shape == (2, 5, 2)
    np.testing.assert_allclose(y, ref.conv1d(x, k, 2, pads=(2, 0)) + b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("size, kernel, pads", [(10, 3, (0, 1)), (9, 3, (1, 1)),
                                                (9, 4, (1, 2)), (10, 4, (1, 1))])
def test_same_padding_stride_2(size, kernel, pads, backend):
    x = np.random.default_rng(3).standard_normal((2, size, 3)).astype("float32")
    layer = layers.Conv1D(2, kernel, strides=2, padding="same")
    y, (k, b) = _run(layer, x)
    np.testing.assert_allclose(y, ref.conv1d(x, k, 2, pads) + b, rtol=1e-4, atol=1e-5)


def test_groups_and_dilation(backend):
    x = np.random.default_rng(4).standard_normal((2, 11, 4)).astype("float32")
    layer = layers.Conv1D(6, 3, dilation_rate=3, groups=2)
    y, (k, b) = _run(layer, x)
    np.testing.assert_allclose(y, ref.conv1d(x, k, dilation=3, groups=2) + b,
                               rtol=1e-4, atol=1e-5)


def test_causal_channels_first(backend):
    x = np.random.default_rng(5).standard_normal((2, 3, 7)).astype("float32")
    layer = layers.Conv1D(2, 3, padding="causal", data_format="channels_first")
    y, (k, b) = _run(layer, x)
    expected = ref.conv1d(np.transpose(x, (0, 2, 1)), k, pads=(2, 0)) + b
    np.testing.assert_allclose(y, np.transpose(expected, (0, 2, 1)), rtol=1e-4, atol=1e-5)


def test_rank_error_names_the_layer():
    with pytest.raises(ShapeError, match=r"^seq expects input of rank 3 \(batch, steps, "
                                         r"channels\); received shape \(4, 10\)$"):
        layers.Conv1D(2, 3, name="seq")(np.zeros((4, 10), "float32"))


@pytest.mark.parametrize("kwargs, message", [
    (dict(filters=-1, kernel_size=3), r"argument 'filters' must be a positive int"),
    (dict(filters=2, kernel_size=(3, 3)), r"argument 'kernel_size' must be a positive int "
                                          r"\(or a tuple of one\); received \(3, 3\)"),
    (dict(filters=2, kernel_size=3, padding="full"), r"argument 'padding' must be 'valid', "
                                                     r"'same' or 'causal'; received 'full'"),
    (dict(filters=3, kernel_size=3, groups=2), r"argument 'groups' must divide 'filters'"),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=r"^c1: " + message):
        layers.Conv1D(name="c1", **kwargs)


def test_config_keeps_causal():
    config = layers.Conv1D(2, 3, padding="causal").get_config()
    assert config["padding"] == "causal" and config["kernel_size"] == (3,)
    assert layers.Conv1D.from_config(config).padding == "causal"
    assert layers.Convolution1D is layers.Conv1D
