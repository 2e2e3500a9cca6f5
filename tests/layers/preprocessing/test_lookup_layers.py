"""StringLookup, IntegerLookup, Hashing, HashedCrossing against Keras 3's numbers.

Keras computes these with TensorFlow ops (not installed in the reference venv), so the
fixtures are the outputs printed in Keras 3.15.1's own docstrings; the hashes were also
checked against the pyfarmhash and siphashc libraries (FarmHash Fingerprint64, SipHash-2-4).
"""
import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.backend.string_hashing import fingerprint64, fingerprint_cat64, siphash64

VOCAB = ["a", "b", "c", "d"]
DATA = [["a", "c", "d"], ["d", "z", "b"]]
LETTERS = [["A"], ["B"], ["C"], ["D"], ["E"]]


def test_hash_functions_known_values():
    # FarmHash Fingerprint64 of the empty string is its constant k2.
    assert fingerprint64(b"") == 0x9AE16A3B2F90404F
    assert fingerprint64(b"a" * 100) != fingerprint64(b"a" * 99)
    # SipHash-2-4 reference vector (the paper: key 00..0f, message 00..0e).
    key = (int.from_bytes(bytes(range(8)), "little"), int.from_bytes(bytes(range(8, 16)), "little"))
    assert siphash64(key, bytes(range(15))) == 0xA129CA6149BE45E5
    assert fingerprint_cat64(1, 2) != fingerprint_cat64(2, 1)


def test_string_lookup_vocabulary_and_adapt_match_keras():
    out = layers.StringLookup(vocabulary=VOCAB)(DATA)
    np.testing.assert_array_equal(out.numpy(), [[1, 3, 4], [4, 0, 2]])
    assert out.dtype == "int64"
    layer = layers.StringLookup()
    layer.adapt(DATA)
    assert layer.get_vocabulary() == ["[UNK]", "d", "z", "c", "b", "a"]
    np.testing.assert_array_equal(layer(DATA).numpy(), [[5, 3, 1], [1, 2, 4]])
    assert layer.vocabulary_size() == 6
    assert layer.get_vocabulary(include_special_tokens=False) == ["d", "z", "c", "b", "a"]


def test_string_lookup_several_oov_indices_hash_like_keras():
    layer = layers.StringLookup(vocabulary=VOCAB, num_oov_indices=2)
    np.testing.assert_array_equal(layer([["a", "c", "d"], ["m", "z", "b"]]).numpy(),
                                  [[2, 4, 5], [0, 1, 3]])


def test_string_lookup_encodings_match_keras():
    one_hot = layers.StringLookup(vocabulary=VOCAB, output_mode="one_hot")(
        np.array(["a", "b", "c", "d", "z"]))
    np.testing.assert_array_equal(one_hot.numpy(), np.eye(5)[[1, 2, 3, 4, 0]])
    data = [["a", "c", "d", "d"], ["d", "z", "b", "z"]]
    multi = layers.StringLookup(vocabulary=VOCAB, output_mode="multi_hot")(data)
    np.testing.assert_array_equal(multi.numpy(), [[0, 1, 0, 1, 1], [1, 0, 1, 0, 1]])
    count = layers.StringLookup(vocabulary=VOCAB, output_mode="count")(data)
    np.testing.assert_array_equal(count.numpy(), [[0, 1, 0, 1, 2], [2, 0, 1, 0, 1]])
    tfidf = layers.StringLookup(output_mode="tf_idf")
    tfidf.set_vocabulary(VOCAB, idf_weights=[0.25, 0.75, 0.6, 0.4])
    np.testing.assert_allclose(tfidf(data).numpy(), [[0, .25, 0, .6, .8], [1., 0, .75, 0, .4]],
                               rtol=1e-6)
    tfidf.set_vocabulary(["[UNK]"] + VOCAB, idf_weights=[0.9, 0.25, 0.75, 0.6, 0.4])
    np.testing.assert_allclose(tfidf(data).numpy(), [[0, .25, 0, .6, .8], [1.8, 0, .75, 0, .4]],
                               rtol=1e-6)


def test_string_lookup_invert_and_mask():
    inverse = layers.StringLookup(vocabulary=VOCAB, invert=True)
    indices = layers.StringLookup(vocabulary=VOCAB)(DATA)
    assert inverse(indices).tolist() == [["a", "c", "d"], ["d", "[UNK]", "b"]]
    masked = layers.StringLookup(vocabulary=VOCAB, mask_token="[MASK]")
    np.testing.assert_array_equal(masked([["a", "[MASK]", "z"]]).numpy(), [[2, 0, 1]])


def test_string_lookup_adapt_idf_and_bytes():
    layer = layers.StringLookup(output_mode="tf_idf")
    layer.adapt([["a", "a", "b"], ["b", "c", "c"]])
    assert layer.get_vocabulary() == ["[UNK]", "c", "b", "a"]
    idf_b, idf_ac = np.log(1 + 2 / 3), np.log(1 + 2 / 2)
    out = layer([[b"a", b"b", b"q"]]).numpy()
    mean = (idf_ac + idf_b + idf_ac) / 3
    np.testing.assert_allclose(out, [[mean, 0, idf_b, idf_ac]], rtol=1e-6)


def test_string_lookup_errors():
    with pytest.raises(ValueError, match="repeats the term"):
        layers.StringLookup(vocabulary=["a", "a"])
    with pytest.raises(ValueError, match="num_oov_indices=0 every input"):
        layers.StringLookup(vocabulary=VOCAB, num_oov_indices=0)(["z"])
    with pytest.raises(ValueError, match="must be 'int' when invert=True"):
        layers.StringLookup(invert=True, output_mode="count")
    with pytest.raises(ValueError, match="cannot be adapted"):
        layers.StringLookup(vocabulary=VOCAB).adapt(DATA)
    with pytest.raises(ValueError, match="'sparse' must be False"):
        layers.StringLookup(sparse=True, output_mode="count")
    with pytest.raises(RuntimeError, match="set the vocabulary"):
        layers.StringLookup(output_mode="count")(DATA)
    with pytest.raises(ValueError, match="more than max_tokens=3"):
        layers.StringLookup(vocabulary=VOCAB, max_tokens=3)
    with pytest.raises(TypeError, match="expected strings"):
        layers.StringLookup(vocabulary=VOCAB)([1, 2])


def test_string_host_layers_refuse_symbolic_inputs():
    x = lamina.Input((1,))
    for layer in (layers.StringLookup(vocabulary=VOCAB), layers.TextVectorization()):
        with pytest.raises(TypeError, match="apply it to the data first"):
            layer(x)


def test_integer_lookup_matches_keras():
    data = np.array([[12, 1138, 42], [42, 1000, 36]])
    out = layers.IntegerLookup(vocabulary=[12, 36, 1138, 42])(data)
    np.testing.assert_array_equal(out.numpy(), [[1, 3, 4], [4, 0, 2]])
    layer = layers.IntegerLookup()
    layer.adapt(data)
    assert layer.get_vocabulary() == [-1, 42, 1138, 1000, 36, 12]
    oov2 = layers.IntegerLookup(vocabulary=[12, 36, 1138, 42], num_oov_indices=2)
    np.testing.assert_array_equal(oov2(np.array([[12, 1138, 42], [37, 1000, 36]])).numpy(),
                                  [[2, 4, 5], [1, 0, 3]])
    inverse = layers.IntegerLookup(vocabulary=[12, 36, 1138, 42], invert=True)
    np.testing.assert_array_equal(inverse(np.array([[1, 3, 4], [4, 0, 2]])).numpy(),
                                  [[12, 1138, 42], [42, -1, 36]])
    with pytest.raises(ValueError, match="'vocabulary_dtype' must be 'int64'"):
        layers.IntegerLookup(vocabulary_dtype="int32")
    with pytest.raises(ValueError, match="'salt' is only used with oov_method='farmhash'"):
        layers.IntegerLookup(salt=3)


def test_hashing_matches_keras_docstring():
    np.testing.assert_array_equal(layers.Hashing(3)(LETTERS).numpy().ravel(), [1, 0, 1, 1, 2])
    masked = layers.Hashing(3, mask_value="")([["A"], ["B"], [""], ["C"], ["D"]])
    np.testing.assert_array_equal(masked.numpy().ravel(), [1, 1, 0, 2, 2])
    np.testing.assert_array_equal(layers.Hashing(3, salt=[133, 137])(LETTERS).numpy().ravel(),
                                  [1, 2, 1, 0, 2])
    np.testing.assert_array_equal(layers.Hashing(3, salt=133)(LETTERS).numpy().ravel(),
                                  [0, 0, 2, 1, 0])
    ints = layers.Hashing(3)(np.array([[1], [2]]))
    assert ints.numpy().ravel().tolist() == [fingerprint64(b"1") % 3, fingerprint64(b"2") % 3]
    with pytest.raises(ValueError, match="'num_bins' must be a positive int"):
        layers.Hashing(0)
    with pytest.raises(ValueError, match="'salt' must be an int or a pair of ints \\(it can "
                                         "only be a tuple of size 2"):
        layers.Hashing(3, salt="x")


def test_hashed_crossing_matches_keras_docstring():
    feat1, feat2 = np.array(["A", "B", "A", "B", "A"]), np.array([101, 101, 101, 102, 102])
    out = layers.HashedCrossing(5)((feat1, feat2))
    np.testing.assert_array_equal(out.numpy(), [1, 4, 1, 1, 3])
    one_hot = layers.HashedCrossing(5, output_mode="one_hot")((feat1, feat2))
    np.testing.assert_array_equal(one_hot.numpy(), np.eye(5)[[1, 4, 1, 1, 3]])
    with pytest.raises(ValueError, match="at least two"):
        layers.HashedCrossing(5)([feat1])
    with pytest.raises(ValueError, match="all inputs should have equal shape"):
        layers.HashedCrossing(5)((feat1, feat2[:2]))


@pytest.mark.parametrize("layer", [
    layers.StringLookup(vocabulary=VOCAB, num_oov_indices=2, output_mode="count"),
    layers.IntegerLookup(vocabulary=[3, 4], mask_token=0),
    layers.Hashing(7, salt=[1, 2], output_mode="multi_hot"),
    layers.HashedCrossing(9),
], ids=lambda l: type(l).__name__)
def test_config_round_trip(layer):
    config = layer.get_config()
    clone = type(layer).from_config(config)
    assert clone.get_config() == config
    restored = layers.deserialize(layers.serialize(layer))
    assert type(restored) is type(layer)


def test_adapt_takes_ragged_lists_and_call_refuses_them():
    layer = layers.IntegerLookup()
    layer.adapt([[1, 2, 2], [3]])
    assert layer.get_vocabulary() == [-1, 2, 3, 1]
    with pytest.raises(ValueError, match="integer_lookup.*: expected rectangular data"):
        layer([[1, 2], [3]])


def test_tf_idf_adapt_pads_to_max_tokens():
    layer = layers.StringLookup(output_mode="tf_idf", max_tokens=6, pad_to_max_tokens=True)
    layer.adapt([["a", "b"], ["a"]])
    idf_a, idf_b = np.log(1 + 2 / 3), np.log(1 + 2 / 2)
    np.testing.assert_allclose(layer([["a", "z"]]).numpy(),
                               [[(idf_a + idf_b) / 2, idf_a, 0, 0, 0, 0]], rtol=1e-6)
