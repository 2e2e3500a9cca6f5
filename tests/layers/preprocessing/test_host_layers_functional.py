"""Hashing, HashedCrossing and IntegerLookup in functional models (Keras 3.15.1 numbers):
a symbolic call gives the output's shape and dtype, the model runs the layer on the host."""
import numpy as np
import pytest

import lamina
from lamina import layers


def test_hashing_one_hot_in_a_model():
    inputs = layers.Input(shape=(1,), dtype="int32")
    outputs = layers.Hashing(num_bins=3, output_mode="one_hot")(inputs)
    assert outputs.shape == (None, 3) and outputs.dtype == "float32"
    model = lamina.Model(inputs, outputs)
    np.testing.assert_array_equal(model(np.array([0, 1, 2, 3, 4])).numpy(),
                                  [[0, 1, 0], [1, 0, 0], [0, 1, 0], [1, 0, 0], [0, 0, 1]])


def test_hashing_multi_hot_and_count_in_a_model():
    inputs = layers.Input(shape=(None,), dtype="int32")
    multi_hot = layers.Hashing(num_bins=3, output_mode="multi_hot")(inputs)
    assert multi_hot.shape == (None, 3)
    model = lamina.Model(inputs, multi_hot)
    np.testing.assert_array_equal(model(np.array([[0, 1, 2, 3, 4]])).numpy(), [[1, 1, 1]])
    count = layers.Hashing(num_bins=3, output_mode="count")
    assert count(layers.Input(shape=(), dtype="int32")).shape == (3,)
    np.testing.assert_array_equal(count(np.array([0, 1, 2, 3, 4])).numpy(), [2, 2, 1])


@pytest.mark.parametrize("mode", ["int", "one_hot", "multi_hot", "count"])
@pytest.mark.parametrize("shape", [(4,), (4, 1), (3, 4)])
def test_hashing_symbolic_shape_matches_eager(mode, shape):
    layer = layers.Hashing(num_bins=5, output_mode=mode)
    symbolic = layer(layers.Input(shape=shape, dtype="int32"))
    eager = layer(np.arange(2 * int(np.prod(shape))).reshape((2,) + shape))
    assert symbolic.shape[1:] == eager.shape[1:]
    assert layer.compute_output_shape((None,) + shape) == symbolic.shape
    assert symbolic.dtype == eager.dtype


def test_hashed_crossing_in_a_model():
    a, b = layers.Input(shape=(), dtype="int32"), layers.Input(shape=(), dtype="int32")
    out = layers.HashedCrossing(num_bins=5)((a, b))
    assert out.shape == (None,) and out.dtype == "int64"
    model = lamina.Model([a, b], out)
    np.testing.assert_array_equal(model([np.array([1, 2, 3]), np.array([4, 5, 6])]).numpy(),
                                  [0, 3, 3])
    one_hot = layers.HashedCrossing(num_bins=5, output_mode="one_hot")
    c, d = layers.Input(shape=(1,), dtype="int32"), layers.Input(shape=(1,), dtype="int32")
    assert one_hot((c, d)).shape == (None, 5)
    np.testing.assert_array_equal(
        one_hot((np.array([[1], [2], [3]]), np.array([[4], [5], [6]]))).numpy(),
        np.eye(5)[[0, 3, 3]])


def test_hashed_crossing_refuses_float_symbolic_inputs():
    x = layers.Input(shape=())
    with pytest.raises(ValueError, match=r"hc: all inputs should have an integer or string "
                                         r"dtype; received dtype float32"):
        layers.HashedCrossing(num_bins=5, name="hc")((x, x))


def test_integer_lookup_one_hot_keeps_input_axes():
    layer = layers.IntegerLookup(vocabulary=[1, 2, 3], output_mode="one_hot")
    symbolic = layer(layers.Input(shape=(2, 2), dtype="int32"))
    assert symbolic.shape == (None, 2, 2, 4)
    assert layer.compute_output_spec(layers.Input(shape=(3, 4), dtype="int32")).shape == \
        (None, 3, 4, 4)
    expected = [[[0, 1, 0, 0], [0, 0, 1, 0]], [[0, 0, 0, 1], [1, 0, 0, 0]]]
    eager = layer(np.array([[[1, 2], [3, 0]]]))
    assert eager.shape == (1, 2, 2, 4)
    np.testing.assert_array_equal(eager.numpy(), [expected])
    assert symbolic.dtype == eager.dtype


def test_predict_runs_host_layers_eagerly():
    inputs = layers.Input(shape=(1,), dtype="int32")
    model = lamina.Model(inputs, layers.Hashing(num_bins=3, output_mode="one_hot")(inputs))
    with pytest.warns(UserWarning, match="runs eagerly instead"):
        out = model.predict(np.array([[0], [1], [4]]), verbose=0)
    np.testing.assert_array_equal(out, [[0, 1, 0], [1, 0, 0], [0, 0, 1]])
