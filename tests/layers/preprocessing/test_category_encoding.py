import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case


def tokens(high):
    return lambda rng, shape: rng.integers(0, high, shape).astype("int32")


CE = layers.CategoryEncoding
CASES = [
    LayerCase(CE, dict(num_tokens=5), (3, 4), (3, 5), trainable_weights=0, params=0,
              make_input=tokens(5), weight_shapes={}),
    LayerCase(CE, dict(num_tokens=6, output_mode="one_hot"), (4, 1), (4, 6),
              trainable_weights=0, params=0, make_input=tokens(6)),
    LayerCase(CE, dict(num_tokens=6, output_mode="one_hot"), (4, 3), (4, 3, 6),
              trainable_weights=0, params=0, make_input=tokens(6)),
    LayerCase(CE, dict(num_tokens=4, output_mode="count"), (3, 7), (3, 4),
              trainable_weights=0, params=0, make_input=tokens(4)),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_category_encoding_harness(case, backend):
    run_layer_case(case)


X = np.array([[0, 1, 1, 3], [2, 2, 2, 0], [4, 4, 0, 1]], "int32")


def _one_hot(x, n):
    return (x[..., None] == np.arange(n)).astype("float32")


def test_multi_hot_matches_numpy(backend):
    y = CE(5)(X).numpy()
    np.testing.assert_array_equal(y, _one_hot(X, 5).max(axis=1))
    assert y.dtype == np.float32


def test_count_matches_numpy(backend):
    np.testing.assert_array_equal(CE(5, output_mode="count")(X).numpy(),
                                  _one_hot(X, 5).sum(axis=1))


def test_count_weights(backend):
    w = np.arange(12, dtype="float32").reshape(3, 4) / 10
    y = CE(5, output_mode="count")(X, count_weights=w).numpy()
    np.testing.assert_allclose(y, (_one_hot(X, 5) * w[..., None]).sum(axis=1), rtol=1e-6)


def test_one_hot_rank1_and_keras_example(backend):
    # Keras docs: CategoryEncoding(num_tokens=4, output_mode="one_hot")([3, 2, 0, 1])
    y = CE(4, output_mode="one_hot")(np.array([3, 2, 0, 1], "int32")).numpy()
    np.testing.assert_array_equal(y, np.eye(4, dtype="float32")[[3, 2, 0, 1]])


def test_multi_hot_rank1_is_one_sample(backend):
    y = CE(4)(np.array([3, 3, 0], "int32")).numpy()
    np.testing.assert_array_equal(y, [1, 0, 0, 1])


def test_out_of_range_tokens_encode_as_zeros(backend):
    y = CE(3, output_mode="count")(np.array([[0, 5, -1]], "int32")).numpy()
    np.testing.assert_array_equal(y, [[1, 0, 0]])


def test_binary_is_multi_hot():
    assert CE(3, output_mode="binary").output_mode == "multi_hot"


def test_rejects_missing_num_tokens():
    with pytest.raises(ValueError, match=r"ce: num_tokens must be set to use this layer .*"
                                         r"received None"):
        CE(name="ce")


def test_rejects_bad_num_tokens():
    with pytest.raises(ValueError, match=r"`num_tokens` must be >= 1 \(a positive int\); "
                                         r"received num_tokens=0"):
        CE(0)


def test_rejects_bad_output_mode():
    with pytest.raises(ValueError, match=r"Unknown arg for output_mode: tf_idf; expected one "
                                         r"of 'multi_hot', 'one_hot', 'count'"):
        CE(3, output_mode="tf_idf")


def test_rejects_sparse():
    with pytest.raises(ValueError, match=r"argument 'sparse' must be False"):
        CE(3, sparse=True)


# Keras 3.15.1's numbers: rank-3 inputs encode along axis 1 (multi_hot/count) or gain a
# depth axis (one_hot), and a rank-1 input of one token stays a batch of one for one_hot.
X3 = np.array([[[1, 2], [3, 3]], [[0, 1], [2, 2]]], "int32")
KERAS_MULTI_HOT_X3 = [[[0, 1, 0, 1], [0, 0, 1, 1]], [[1, 0, 1, 0], [0, 1, 1, 0]]]


@pytest.mark.parametrize("mode", ["multi_hot", "count"])
def test_rank3_input_reduces_axis_1_like_keras(mode, backend):
    layer = CE(4, output_mode=mode)
    y = layer(X3).numpy()
    np.testing.assert_array_equal(y, KERAS_MULTI_HOT_X3)
    assert layer.compute_output_shape((None, 2, 2)) == (None, 2, 4)
    assert layer.compute_output_shape((None, 6, 3)) == (None, 3, 4)


def test_rank3_one_hot_appends_depth(backend):
    layer = CE(4, output_mode="one_hot")
    y = layer(X3).numpy()
    np.testing.assert_array_equal(y, _one_hot(X3, 4))
    assert layer(layers.Input(shape=(2, 2), dtype="int32")).shape == (None, 2, 2, 4)


def test_one_hot_of_one_token_vector_keeps_its_axis(backend):
    layer = CE(6, output_mode="one_hot")
    y = layer(np.array([4], "int32")).numpy()
    np.testing.assert_array_equal(y, [[0, 0, 0, 0, 1, 0]])
    assert layer.compute_output_shape((1,)) == (1, 6)


def test_private_encode_matches_call(backend):
    layer = CE(4, output_mode="one_hot")
    np.testing.assert_array_equal(layer._encode(np.array([1, 2, 3, 1])).numpy(),
                                  np.eye(4)[[1, 2, 3, 1]])


def test_rejects_count_weights_outside_count_mode():
    with pytest.raises(ValueError, match=r"`count_weights` is not used when `output_mode` is "
                                         r"not 'count'; received output_mode='multi_hot'"):
        CE(5)(X, count_weights=np.ones((3, 4), "float32"))


def test_rejects_count_weights_of_other_shape():
    with pytest.raises(ValueError, match=r"argument 'count_weights' must have the input's "
                                         r"shape \(3, 4\); received \(3, 2\)"):
        CE(5, output_mode="count")(X, count_weights=np.ones((3, 2), "float32"))
