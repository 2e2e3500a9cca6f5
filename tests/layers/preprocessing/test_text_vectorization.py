"""TextVectorization against Keras 3.15.1's docstring outputs (Keras needs TensorFlow for
this layer, absent from the reference venv), and its .keras round trip."""
import zipfile

import numpy as np
import pytest

import lamina
from lamina import layers

TV = layers.TextVectorization


def test_adapt_and_int_output_match_keras():
    layer = TV(max_tokens=5000, output_mode="int", output_sequence_length=4)
    layer.adapt(["foo bar", "bar baz", "baz bada boom"])
    out = layer([["foo qux bar"], ["qux baz"]])
    np.testing.assert_array_equal(out.numpy(), [[4, 1, 3, 0], [1, 2, 0, 0]])
    assert out.dtype == "int64"


def test_given_vocabulary_matches_keras():
    layer = TV(max_tokens=5000, output_mode="int", output_sequence_length=4,
               vocabulary=["earth", "wind", "and", "fire"])
    assert layer.get_vocabulary() == ["", "[UNK]", "earth", "wind", "and", "fire"]
    np.testing.assert_array_equal(layer(["Earth, wind and ALSO fire"]).numpy(), [[2, 3, 4, 1]])


def test_standardize_split_ngrams():
    layer = TV(standardize="lower", split="character", vocabulary=["a", "b", "!"])
    np.testing.assert_array_equal(layer(["Ab!c"]).numpy(), [[2, 3, 4, 1]])
    raw = TV(standardize=None, split=None, vocabulary=["Hello, World"])
    np.testing.assert_array_equal(raw(np.array([["Hello, World"], ["x"]])).numpy(), [[2], [1]])
    grams = TV(ngrams=2, output_mode="multi_hot")
    grams.adapt(["a b c", "b c d"])
    assert grams.get_vocabulary() == ["[UNK]", "c", "b c", "b", "d", "c d", "a b", "a"]
    np.testing.assert_array_equal(grams(["a b", "c d e"]).numpy(),
                                  [[0, 0, 0, 1, 0, 0, 1, 1], [1, 1, 0, 0, 1, 1, 0, 0]])
    custom = TV(standardize=lambda x: np.char.upper(x.astype(str)),
                split=lambda x: [s.split("-") for s in x], vocabulary=["A", "B"])
    np.testing.assert_array_equal(custom(["a-b-q"]).numpy(), [[2, 3, 1]])


def test_count_and_tf_idf():
    count = TV(output_mode="count", vocabulary=["x", "y"])
    np.testing.assert_array_equal(count(["x x y z"]).numpy(), [[1, 2, 1]])
    tfidf = TV(output_mode="tf_idf")
    tfidf.adapt(["x x y", "y z"])
    assert tfidf.get_vocabulary() == ["[UNK]", "y", "x", "z"]
    idf = [np.log(1 + 2 / 3), np.log(1 + 2 / 2), np.log(1 + 2 / 2)]
    np.testing.assert_allclose(tfidf(["x y y w"]).numpy(),
                               [[np.mean(idf), 2 * idf[0], idf[1], 0]], rtol=1e-6)


def test_errors():
    with pytest.raises(ValueError, match="'ragged' must be False"):
        TV(ragged=True)
    with pytest.raises(ValueError, match="`output_sequence_length` must not be set if "
                                         "`output_mode` is not 'int'"):
        TV(output_mode="count", output_sequence_length=3)
    with pytest.raises(ValueError, match="'standardize' must be one of"):
        TV(standardize="upper")
    with pytest.raises(ValueError, match="'split' must be one of"):
        TV(split="comma")
    with pytest.raises(ValueError, match="'output_mode' must be one of"):
        TV(output_mode="one_hot")
    with pytest.raises(ValueError, match=r"shape \(batch,\) or \(batch, 1\)"):
        TV(vocabulary=["a"])([["a", "b"]])


def test_config_round_trip():
    layer = TV(max_tokens=10, ngrams=(1, 3), output_sequence_length=5,
               vocabulary=["a", "b"])
    config = layer.get_config()
    assert config["vocabulary"] == ["a", "b"] and config["ngrams"] == (1, 3)
    clone = TV.from_config(config)
    assert clone.get_config() == config
    np.testing.assert_array_equal(clone(["a b c"]).numpy(), layer(["a b c"]).numpy())


def test_adapted_vocabulary_round_trips_through_keras_file_as_an_asset(tmp_path):
    layer = TV(output_sequence_length=3)
    layer.adapt(["a b c", "b c", "c"])
    model = lamina.Sequential([layer])
    path = str(tmp_path / "tv.keras")
    with pytest.warns(UserWarning):
        model.save(path)
    names = zipfile.ZipFile(path).namelist()
    assert "assets/layers/text_vectorization/vocabulary.txt" in names
    text = zipfile.ZipFile(path).read("assets/layers/text_vectorization/vocabulary.txt")
    assert text.decode() == "\n[UNK]\nc\nb\na"
    restored = lamina.saving.load_model(path).layers[0]
    assert restored.get_config()["vocabulary"] is None
    assert restored.get_vocabulary() == ["", "[UNK]", "c", "b", "a"]
    np.testing.assert_array_equal(restored(["a c z"]).numpy(), [[4, 2, 1]])


def test_sequential_model_starting_with_text_vectorization_fits_and_predicts(tmp_path):
    texts = np.array(["good movie", "bad movie", "good good", "bad bad film"])
    y = np.array([1.0, 0.0, 1.0, 0.0], "float32")
    vectorize = TV(output_sequence_length=4)
    vectorize.adapt(texts)
    model = lamina.Sequential([vectorize, layers.Embedding(10, 4),
                               layers.GlobalAveragePooling1D(), layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit(texts, y, epochs=2, verbose=0, validation_data=(texts, y))
    assert history.history["loss"][1] < history.history["loss"][0]
    predicted = model.predict(texts, verbose=0)
    # The same as running the layer on the data first and the rest of the model on that.
    np.testing.assert_allclose(model.predict(vectorize(texts), verbose=0), predicted)
    np.testing.assert_allclose(model(texts).numpy(), predicted, rtol=1e-5, atol=1e-6)
    assert np.isclose(model.evaluate(texts, y, verbose=0), history.history["val_loss"][1])
    path = str(tmp_path / "text_model.keras")
    model.save(path)
    loaded = lamina.saving.load_model(path)
    np.testing.assert_allclose(loaded.predict(texts, verbose=0), predicted, rtol=1e-6)


def test_functional_model_refuses_text_vectorization_on_its_input():
    with pytest.raises(TypeError, match="text_vec: TextVectorization works on host data"):
        TV(name="text_vec")(lamina.Input((1,)))


def test_standardize_callable_gets_unicode_numpy_array():
    # Keras 3.15.1 on its non-TensorFlow backends hands the callable a numpy 'U' array.
    seen = []

    def np_standardize(text):
        seen.append((type(text).__name__, text.dtype.kind))
        return np.char.replace(np.char.lower(text), ",", "")

    layer = TV(standardize=np_standardize)
    layer.adapt(["Hello, world."])
    assert seen and all(s == ("ndarray", "U") for s in seen)
    assert layer.get_vocabulary() == ["", "[UNK]", "world.", "hello"]


def test_adapt_stops_an_endless_generator_after_steps():
    def texts():
        while True:
            yield ["hello world", "foo bar"]
    layer = TV()
    layer.adapt(texts(), steps=3)
    assert layer.get_vocabulary() == ["", "[UNK]", "world", "hello", "foo", "bar"]
    lookup = layers.StringLookup()
    lookup.adapt((["a", "b", "a"] for _ in iter(int, 1)), steps=2)
    assert lookup.get_vocabulary() == ["[UNK]", "a", "b"]
