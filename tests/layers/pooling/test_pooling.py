import json
import pathlib

import numpy as np
import pytest

from lamina import layers
from lamina.errors import ShapeError
from tests.layers.harness import LayerCase, case_id, run_layer_case


def _no_weights(cls, kwargs, input_shape, output_shape):
    return LayerCase(cls, kwargs, input_shape, output_shape, trainable_weights=0,
                     weight_shapes={}, params=0)


CASES = [
    _no_weights(layers.MaxPooling2D, {}, (2, 8, 7, 3), (2, 4, 3, 3)),
    _no_weights(layers.MaxPooling2D, dict(pool_size=3, strides=2, padding="same"),
                (2, 7, 8, 3), (2, 4, 4, 3)),
    _no_weights(layers.MaxPooling2D, dict(pool_size=(2, 3), data_format="channels_first"),
                (2, 3, 6, 7), (2, 3, 3, 2)),
    _no_weights(layers.MaxPooling1D, {}, (2, 9, 3), (2, 4, 3)),
    _no_weights(layers.MaxPooling1D, dict(pool_size=3, strides=1, padding="same"),
                (2, 6, 2), (2, 6, 2)),
    _no_weights(layers.AveragePooling2D, dict(pool_size=2), (2, 6, 6, 2), (2, 3, 3, 2)),
    _no_weights(layers.AveragePooling2D, dict(pool_size=3, strides=2, padding="same",
                                              data_format="channels_first"),
                (2, 2, 7, 8), (2, 2, 4, 4)),
    _no_weights(layers.AveragePooling1D, dict(pool_size=3, strides=2, padding="same"),
                (2, 8, 3), (2, 4, 3)),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_pooling_harness(case, backend):
    run_layer_case(case)


# --------------------------------------------------------------------------- references
def pool2d_ref(x, pool, strides, pads, mode):
    """Windows over an explicitly padded image; padding never wins a max and is not
    counted in a mean (TensorFlow's and Keras's rule)."""
    n, h, w, c = x.shape
    (ph, pw), (sh, sw) = pool, strides
    (t, b), (l, r) = pads
    oh, ow = (h + t + b - ph) // sh + 1, (w + l + r - pw) // sw + 1
    y = np.zeros((n, oh, ow, c))
    for p in range(oh):
        for q in range(ow):
            rows = slice(max(p * sh - t, 0), min(p * sh - t + ph, h))
            cols = slice(max(q * sw - l, 0), min(q * sw - l + pw, w))
            win = x[:, rows, cols].reshape(n, -1, c)
            y[:, p, q] = win.max(1) if mode == "max" else win.mean(1)
    return y


# 'same' pads by hand: out = ceil(n / s), total = (out-1)*s + k - n, the odd one after.
@pytest.mark.parametrize("cls, mode", [(layers.MaxPooling2D, "max"),
                                       (layers.AveragePooling2D, "avg")])
@pytest.mark.parametrize("shape, pool, strides, pads", [
    ((8, 7), (3, 3), (2, 2), ((0, 1), (1, 1))),      # n 8 -> total 1; n 7 -> total 2
    ((7, 7), (2, 2), (2, 2), ((0, 1), (0, 1))),      # n 7, k 2 -> total 1, after
    ((5, 6), (3, 2), (1, 1), ((1, 1), (0, 1))),
    ((6, 5), (4, 4), (3, 2), ((0, 1), (1, 2))),      # n 6, s 3: out 2, total 1; n 5: 3
])
def test_same_padding(cls, mode, shape, pool, strides, pads, backend):
    x = np.random.default_rng(0).standard_normal((2, *shape, 3)).astype("float32")
    y = cls(pool, strides, padding="same")(x).numpy()
    np.testing.assert_allclose(y, pool2d_ref(x, pool, strides, pads, mode), rtol=1e-5,
                               atol=1e-6)


def test_max_pool_same_never_picks_padding(backend):
    x = -np.ones((1, 3, 3, 1), "float32")
    y = layers.MaxPooling2D(2, padding="same")(x).numpy()
    np.testing.assert_array_equal(y, -np.ones((1, 2, 2, 1)))


def test_average_pool_same_excludes_padding(backend):
    x = np.arange(1, 6, dtype="float32").reshape(1, 5, 1)
    y = layers.AveragePooling1D(2, padding="same")(x).numpy()
    np.testing.assert_allclose(y.reshape(-1), [1.5, 3.5, 5.0])


def test_valid_pooling_1d(backend):
    x = np.random.default_rng(1).standard_normal((2, 9, 2)).astype("float32")
    y = layers.MaxPooling1D(3, strides=2)(x).numpy()
    expected = pool2d_ref(x[:, None], (1, 3), (1, 2), ((0, 0), (0, 0)), "max")[:, 0]
    np.testing.assert_allclose(y, expected, rtol=1e-6)


def test_channels_first(backend):
    x = np.random.default_rng(2).standard_normal((2, 3, 5, 6)).astype("float32")
    y = layers.AveragePooling2D(2, data_format="channels_first")(x).numpy()
    last = layers.AveragePooling2D(2)(np.transpose(x, (0, 2, 3, 1))).numpy()
    np.testing.assert_allclose(y, np.transpose(last, (0, 3, 1, 2)), rtol=1e-6)


def test_defaults_match_keras():
    config = layers.MaxPooling2D().get_config()
    assert config["pool_size"] == (2, 2) and config["strides"] == (2, 2)
    assert config["padding"] == "valid" and config["data_format"] == "channels_last"
    assert layers.MaxPooling1D().get_config()["pool_size"] == (2,)
    with pytest.raises(TypeError):
        layers.AveragePooling2D()                   # Keras 3: pool_size is required


def test_aliases():
    assert layers.MaxPool1D is layers.MaxPooling1D and layers.MaxPool2D is layers.MaxPooling2D
    assert layers.AvgPool1D is layers.AveragePooling1D
    assert layers.AvgPool2D is layers.AveragePooling2D


def test_rank_error_names_the_layer():
    with pytest.raises(ShapeError, match=r"^mp expects input of rank 4 \(batch, height, "
                                         r"width, channels\); received shape \(2, 8, 3\)$"):
        layers.MaxPooling2D(name="mp")(np.zeros((2, 8, 3), "float32"))


def test_pool_larger_than_input():
    with pytest.raises(ShapeError, match=r"^mp: the pool_size \(5,\) is larger than the "
                                         r"input's spatial size \(4,\) with padding 'valid'"):
        layers.MaxPooling1D(5, name="mp")(np.zeros((1, 4, 1), "float32"))


@pytest.mark.parametrize("kwargs, message", [
    (dict(pool_size=0), r"argument 'pool_size' must be an int or a tuple of 2 ints, all "
                        r"positive; received 0"),
    (dict(pool_size=2, strides=(1, 0)), r"argument 'strides' must be an int or a tuple of "
                                        r"2 ints, all positive; received \(1, 0\)"),
    (dict(pool_size=2, padding="causal"), r"argument 'padding' must be 'valid' or 'same'; "
                                          r"received 'causal'"),
    (dict(pool_size=2, data_format="NCHW"), r"argument 'data_format' must be"),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=r"^ap: " + message):
        layers.AveragePooling2D(name="ap", **kwargs)


def test_keras_3_config_round_trips():
    """Pooling configs written by Keras 3.15.1 (tests/fixtures) round-trip unchanged."""
    h5py = pytest.importorskip("h5py")
    path = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "keras_files"
    with h5py.File(path / "small_cnn_k3.h5", "r") as f:
        model = json.loads(f.attrs["model_config"])
    seen = set()
    for entry in model["config"]["layers"]:
        if entry["class_name"] in ("MaxPooling2D", "GlobalAveragePooling2D"):
            config = getattr(layers, entry["class_name"]).from_config(entry["config"])\
                .get_config()
            assert json.loads(json.dumps(config)) == entry["config"]
            seen.add(entry["class_name"])
    assert seen == {"MaxPooling2D", "GlobalAveragePooling2D"}


@pytest.mark.parametrize("cls", [layers.MaxPooling1D, layers.MaxPooling2D,
                                 layers.MaxPooling3D, layers.AveragePooling1D,
                                 layers.AveragePooling2D, layers.AveragePooling3D,
                                 layers.GlobalMaxPooling2D, layers.GlobalAveragePooling1D])
def test_stateless_pooling_is_built_at_init_unless_build_is_overridden(cls):
    # Keras 3.15.1: a layer that keeps the default build() is built once constructed; a
    # subclass that defines build() is built on its first call.
    kwargs = {} if "Global" in cls.__name__ else dict(pool_size=2)
    assert cls(**kwargs).built

    class OwnBuild(cls):
        def build(self, input_shape):
            self.seen = tuple(input_shape)

    layer = OwnBuild(**kwargs)
    assert not layer.built
    rank = 3 if "1D" in cls.__name__ else 4 if "2D" in cls.__name__ else 5
    layer(np.zeros((1,) + (4,) * (rank - 2) + (2,), "float32"))
    assert layer.built and layer.seen == (1,) + (4,) * (rank - 2) + (2,)
