import json
import pathlib

import numpy as np
import pytest

from lamina import layers
from lamina.errors import ShapeError
from tests.layers.convolutional import reference as ref
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.Conv2D, dict(filters=6, kernel_size=3), (2, 8, 8, 4), (2, 6, 6, 6),
              trainable_weights=2, weight_shapes={"kernel": (3, 3, 4, 6), "bias": (6,)},
              params=222),
    LayerCase(layers.Conv2D, dict(filters=6, kernel_size=3, strides=2, padding="same",
                                  groups=2),
              (2, 9, 9, 4), (2, 5, 5, 6), trainable_weights=2,
              weight_shapes={"kernel": (3, 3, 2, 6), "bias": (6,)}, params=114),
    LayerCase(layers.Conv2D, dict(filters=4, kernel_size=(3, 2), dilation_rate=2,
                                  use_bias=False, activation="tanh"),
              (2, 10, 9, 3), (2, 6, 7, 4), trainable_weights=1,
              weight_shapes={"kernel": (3, 2, 3, 4)}, params=72),
    LayerCase(layers.Conv2D, dict(filters=3, kernel_size=3, data_format="channels_first",
                                  kernel_regularizer="l2", bias_initializer="ones"),
              (2, 4, 8, 7), (2, 3, 6, 5), trainable_weights=2,
              weight_shapes={"kernel": (3, 3, 4, 3), "bias": (3,)}, params=111),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_conv2d_harness(case, backend):
    run_layer_case(case)


def _run(layer, x):
    y = layer(x).numpy()
    return y, [np.asarray(w, np.float64) for w in layer.get_weights()]


# TensorFlow's 'same' pads, by hand: out = ceil(n / s), total = (out-1)*s + k - n,
# before = total // 2, the odd element after.
@pytest.mark.parametrize("size, kernel, pads", [
    (8, 3, (0, 1)),     # out 4, total 1: all of it after
    (7, 3, (1, 1)),     # out 4, total 2
    (8, 4, (1, 1)),     # out 4, total 2
    (7, 4, (1, 2)),     # out 4, total 3: the odd one after
])
def test_same_padding_stride_2_is_tensorflows(size, kernel, pads, backend):
    x = np.random.default_rng(0).standard_normal((2, size, size, 3)).astype("float32")
    layer = layers.Conv2D(4, kernel, strides=2, padding="same")
    y, (k, b) = _run(layer, x)
    assert y.shape == (2, -(-size // 2), -(-size // 2), 4)
    np.testing.assert_allclose(y, ref.conv2d(x, k, (2, 2), (pads, pads)) + b,
                               rtol=1e-4, atol=1e-5)


def test_same_padding_differs_per_axis(backend):
    x = np.random.default_rng(4).standard_normal((1, 8, 7, 2)).astype("float32")
    layer = layers.Conv2D(3, (3, 4), strides=(2, 2), padding="same")
    y, (k, b) = _run(layer, x)
    # rows: n 8, k 3 -> total 1 -> (0, 1); cols: n 7, k 4 -> total 3 -> (1, 2)
    np.testing.assert_allclose(y, ref.conv2d(x, k, (2, 2), ((0, 1), (1, 2))) + b,
                               rtol=1e-4, atol=1e-5)


def test_dilation_matches_reference(backend):
    x = np.random.default_rng(1).standard_normal((2, 9, 8, 2)).astype("float32")
    layer = layers.Conv2D(3, (2, 3), dilation_rate=(3, 2), padding="same")
    y, (k, b) = _run(layer, x)
    # rows: span 4, total 3 -> (1, 2); cols: span 5, total 4 -> (2, 2)
    expected = ref.conv2d(x, k, pads=((1, 2), (2, 2)), dilation=(3, 2)) + b
    np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-5)


def test_groups_convolve_each_channel_group_separately(backend):
    x = np.random.default_rng(2).standard_normal((2, 6, 6, 6)).astype("float32")
    layer = layers.Conv2D(4, 3, groups=2, use_bias=False)
    y, (k,) = _run(layer, x)
    assert k.shape == (3, 3, 3, 4)
    first = ref.conv2d(x[..., :3], k[..., :2])
    second = ref.conv2d(x[..., 3:], k[..., 2:])
    np.testing.assert_allclose(y, np.concatenate([first, second], -1), rtol=1e-4, atol=1e-5)


def test_channels_first_equals_channels_last(backend):
    x = np.random.default_rng(3).standard_normal((2, 3, 7, 6)).astype("float32")
    first = layers.Conv2D(4, 3, strides=2, padding="same", data_format="channels_first")
    last = layers.Conv2D(4, 3, strides=2, padding="same")
    y_first = first(x).numpy()
    last(np.transpose(x, (0, 2, 3, 1)))
    last.set_weights(first.get_weights())
    y_last = last(np.transpose(x, (0, 2, 3, 1))).numpy()
    np.testing.assert_allclose(y_first, np.transpose(y_last, (0, 3, 1, 2)), rtol=1e-5)


def test_rank_error_names_the_layer():
    layer = layers.Conv2D(8, 3, name="conv2d_1")
    with pytest.raises(ShapeError, match=r"^conv2d_1 expects input of rank 4 \(batch, "
                                         r"height, width, channels\); received shape "
                                         r"\(32, 28, 28\)$"):
        layer(np.zeros((32, 28, 28), "float32"))


def test_channels_must_match_the_built_layer():
    layer = layers.Conv2D(2, 3, name="c2")
    layer(np.zeros((1, 5, 5, 3), "float32"))
    with pytest.raises(ShapeError, match=r"c2 expects input with last dimension 3 \(the "
                                         r"layer was built for 3\)"):
        layer(np.zeros((1, 5, 5, 4), "float32"))


def test_kernel_larger_than_input():
    with pytest.raises(ShapeError, match=r"c3: the dilated kernel \(7, 7\) is larger than "
                                         r"the input's spatial size \(5, 5\) with padding "
                                         r"'valid'; received input shape \(1, 5, 5, 3\)"):
        layers.Conv2D(4, 7, name="c3")(np.zeros((1, 5, 5, 3), "float32"))


@pytest.mark.parametrize("kwargs, message", [
    (dict(filters=0, kernel_size=3), r"argument 'filters' must be a positive int; received 0"),
    (dict(filters=2.5, kernel_size=3), r"argument 'filters' must be a positive int; "
                                       r"received 2.5"),
    (dict(filters=2, kernel_size=(3, 0)), r"argument 'kernel_size' must be an int or a tuple "
                                          r"of 2 ints, all positive; received \(3, 0\)"),
    (dict(filters=2, kernel_size=(3, 3, 3)), r"argument 'kernel_size' must be an int or a "
                                             r"tuple of 2 ints"),
    (dict(filters=2, kernel_size=3, strides=0), r"argument 'strides' must be an int or a "
                                                r"tuple of 2 ints, all positive; received 0"),
    (dict(filters=2, kernel_size=3, dilation_rate=-1), r"argument 'dilation_rate' must be"),
    (dict(filters=2, kernel_size=3, padding="full"), r"argument 'padding' must be 'valid' or "
                                                     r"'same'; received 'full'"),
    (dict(filters=2, kernel_size=3, padding="causal"), r"argument 'padding' must be 'valid' "
                                                       r"or 'same'; received 'causal'; "
                                                       r"'causal' padding exists for 1-D"),
    (dict(filters=4, kernel_size=3, groups=3), r"argument 'groups' must divide 'filters'; "
                                               r"received groups=3, filters=4"),
    (dict(filters=4, kernel_size=3, groups=0), r"argument 'groups' must be a positive int; "
                                               r"received 0"),
    (dict(filters=4, kernel_size=3, strides=2, dilation_rate=2),
     r"strides > 1 cannot be combined with dilation_rate > 1"),
    (dict(filters=4, kernel_size=3, data_format="NHWC"), r"argument 'data_format' must be "
                                                         r"'channels_last', 'channels_first' "
                                                         r"or None; received 'NHWC'"),
    (dict(filters=4, kernel_size=3, lora_rank=-1), r"argument 'lora_rank' must be a positive "
                                                    r"int or None; received -1"),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=r"^bad_conv: " + message):
        layers.Conv2D(name="bad_conv", **kwargs)


@pytest.mark.parametrize("kwargs, keras_phrase", [
    (dict(filters=0, kernel_size=1), r"Invalid value for argument `filters`. Expected a "
                                     r"strictly positive value. Received filters=0."),
    (dict(filters=2, kernel_size=(2, 2), strides=(1, 0)),
     r"The `strides` argument must be a tuple of 2 integers. Received strides=\(1, 0\), "
     r"including values \{0\} that do not satisfy `value > 0`"),
    (dict(filters=2, kernel_size=(2, 2), strides=2, dilation_rate=(2, 1)),
     r"`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
     r"strides=\(2, 2\) and dilation_rate=\(2, 1\)"),
    (dict(filters=5, kernel_size=(2, 2), groups=0),
     r"The number of groups must be a positive integer. Received: groups=0."),
    (dict(filters=5, kernel_size=(2, 2), groups=2),
     r"The number of filters must be evenly divisible by the number of groups. Received: "
     r"groups=2, filters=5."),
])
def test_bad_arguments_carry_keras_phrases(kwargs, keras_phrase):
    # Keras 3.15.1's conv_test.py test_bad_init_args matches these phrases.
    with pytest.raises(ValueError, match=keras_phrase):
        layers.Conv2D(**kwargs)


def test_groups_must_divide_input_channels():
    with pytest.raises(ValueError, match=r"^g: argument 'groups' \(2\) must divide the "
                                         r"input's 3 channels; received input shape "
                                         r"\(1, 5, 5, 3\)"):
        layers.Conv2D(4, 3, groups=2, name="g")(np.zeros((1, 5, 5, 3), "float32"))


def test_config_is_keras_shaped():
    config = layers.Conv2D(4, 3, padding="SAME").get_config()
    assert config["kernel_size"] == (3, 3) and config["strides"] == (1, 1)
    assert config["padding"] == "same" and config["data_format"] == "channels_last"
    assert config["dilation_rate"] == (1, 1) and config["groups"] == 1
    assert config["activation"] == "linear"
    assert config["kernel_initializer"]["class_name"] == "GlorotUniform"
    assert config["bias_initializer"]["class_name"] == "Zeros"


def test_aliases():
    assert layers.Convolution2D is layers.Conv2D


def test_keras_3_config_round_trips():
    """Conv2D configs written by Keras 3.15.1 (tests/fixtures) round-trip unchanged."""
    h5py = pytest.importorskip("h5py")
    path = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "keras_files"
    with h5py.File(path / "small_cnn_k3.h5", "r") as f:
        model = json.loads(f.attrs["model_config"])
    configs = [l["config"] for l in model["config"]["layers"] if l["class_name"] == "Conv2D"]
    assert configs
    for keras_config in configs:
        ours = layers.Conv2D.from_config(keras_config).get_config()
        assert json.loads(json.dumps(ours)) == keras_config
