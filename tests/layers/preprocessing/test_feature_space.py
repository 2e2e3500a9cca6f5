"""utils.FeatureSpace: Keras 3's feature kinds, ordering (features by name, then crosses by
name) and encodings, built from the lookup/hashing layers checked against Keras's numbers."""
import numpy as np
import pytest

import lamina
from lamina import layers, utils
from lamina.backend.string_hashing import fingerprint64, fingerprint_cat64

FS = utils.FeatureSpace
DATA = {"age": np.array([20.0, 30.0, 40.0, 50.0]), "city": np.array(["a", "b", "a", "c"]),
        "n": np.array([1, 2, 2, 3]), "tag": np.array(["x", "y", "z", "x"])}


def _space(**kwargs):
    space = FS({"age": "float_normalized", "city": "string_categorical",
                "n": "integer_categorical", "tag": FS.string_hashed(4)},
               crosses=[("city", "n")], crossing_dim=5, **kwargs)
    space.adapt(DATA)
    return space


def _cross_bin(a: int, b: int, bins: int) -> int:
    return fingerprint_cat64(fingerprint_cat64(0xDECAFCAFFE, a), b) % bins


def test_concat_encoding_column_by_column():
    out = _space()(DATA).numpy()
    assert out.shape == (4, 1 + 4 + 4 + 4 + 5)
    np.testing.assert_allclose(out[:, 0], (DATA["age"] - 35) / np.sqrt(125), rtol=1e-5)
    city = {"a": 1, "c": 2, "b": 3}            # [UNK], then by count, ties highest first
    n = {2: 1, 3: 2, 1: 3}
    for i in range(4):
        assert out[i, 1:5].tolist() == np.eye(4)[city[DATA["city"][i]]].tolist()
        assert out[i, 5:9].tolist() == np.eye(4)[n[DATA["n"][i]]].tolist()
        tag = fingerprint64(DATA["tag"][i].encode()) % 4
        assert out[i, 9:13].tolist() == np.eye(4)[tag].tolist()
        cross = _cross_bin(city[DATA["city"][i]], n[DATA["n"][i]], 5)
        assert out[i, 13:].tolist() == np.eye(5)[cross].tolist()


def test_dict_mode_single_sample_and_config():
    space = _space(output_mode="dict")
    out = space({k: v[0] for k, v in DATA.items()})
    assert sorted(out) == ["age", "city", "city_X_n", "n", "tag"]
    assert tuple(out["city"].shape) == (4,)
    clone = FS.from_config(space.get_config())
    assert clone.get_config() == space.get_config()


def test_training_model_on_encoded_features():
    space = _space()
    encoded = space.get_encoded_features()
    model = lamina.Model(encoded, layers.Dense(1)(encoded))
    model.compile(optimizer="sgd", loss="mse")
    x = space(DATA)
    model.fit(x, np.ones((4, 1), "float32"), epochs=1, verbose=0)
    assert model.predict(x, verbose=0).shape == (4, 1)


def test_errors():
    with pytest.raises(ValueError, match="'features' must be a non-empty dict \\(it cannot be "
                                         "None or empty\\)"):
        FS({})
    with pytest.raises(ValueError, match="unknown type 'text'"):
        FS({"a": "text"})
    with pytest.raises(ValueError, match="every feature in 'crosses' .*should be present in "):
        FS({"a": "float"}, crosses=[("a", "b")])
    with pytest.raises(ValueError, match=r"You need to call `.adapt\(dataset\)` on the "
                                         r"FeatureSpace .*\['a'\] need statistics"):
        FS({"a": "string_categorical"})({"a": ["x"]})
    with pytest.raises(ValueError, match="for argument `output_mode`: it must be 'dict' or "
                                         "'concat'"):
        FS({"a": "float"}, output_mode="list")


def test_no_adapt_needed_when_preprocessors_are_ready():
    # Keras 3.15.1: a FeatureSpace whose preprocessors need no adapt() can be called as is.
    vectorize = layers.TextVectorization(vocabulary=["this", "is", "an", "example"],
                                         output_mode="int", output_sequence_length=3)
    space = FS({"text": FS.feature(dtype="string", preprocessor=vectorize, output_mode="int"),
                "x": FS.feature(dtype="float32",
                                preprocessor=layers.Normalization(mean=12.0, variance=4.0),
                                output_mode="float"),
                "n": "integer_hashed"}, output_mode="dict")
    out = space({"text": ["this is", "an example now"], "x": [10.0, 16.0], "n": [1, 2]})
    np.testing.assert_array_equal(out["text"].numpy(), [[2, 3, 0], [4, 5, 1]])
    np.testing.assert_allclose(out["x"].numpy(), [[-1.0], [2.0]])
    assert tuple(out["n"].shape) == (2, 32)
