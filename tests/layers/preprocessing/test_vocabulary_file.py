"""Lookup layers take their vocabulary from a text file, one token per line (Keras 3.15.1's
numbers); the config then holds no vocabulary and a saved model keeps it as its asset."""
import os

import numpy as np
import pytest

import lamina
from lamina import layers


def _write(tmp_path, text):
    path = os.path.join(tmp_path, "vocab.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def test_string_lookup_vocabulary_file(tmp_path):
    path = _write(tmp_path, "a\nb\nc\n")
    layer = layers.StringLookup(vocabulary=path, oov_token="[OOV]", mask_token="[MASK]",
                                name="index")
    assert layer.get_vocabulary() == ["[MASK]", "[OOV]", "a", "b", "c"]
    assert layer.get_config()["vocabulary"] is None
    np.testing.assert_array_equal(layer(["c", "a", "z"]).numpy(), [4, 2, 1])
    model_path = os.path.join(tmp_path, "m.keras")
    lamina.Sequential([layer]).save(model_path)
    os.remove(path)                       # the vocabulary comes from the archive
    reloaded = lamina.saving.load_model(model_path).get_layer("index")
    assert reloaded.get_vocabulary() == ["[MASK]", "[OOV]", "a", "b", "c"]


def test_integer_lookup_and_text_vectorization_vocabulary_files(tmp_path):
    ints = layers.IntegerLookup(vocabulary=_write(tmp_path, "10\n20\n30\n"))
    np.testing.assert_array_equal(ints([10, 20, 30, 999]).numpy(), [1, 2, 3, 0])
    text = layers.TextVectorization(vocabulary=_write(tmp_path, "foo\r\nbar\nbaz\n"))
    np.testing.assert_array_equal(text(["foo bar baz unknown"]).numpy(), [[2, 3, 4, 1]])


def test_vocabulary_file_errors(tmp_path):
    with pytest.raises(ValueError, match=r"StringLookup.set_vocabulary: Vocabulary file "
                                         r".*missing.txt does not exist"):
        layers.StringLookup(vocabulary=os.path.join(tmp_path, "missing.txt"))
    path = _write(tmp_path, "a\nb\n")
    with pytest.raises(ValueError, match=r"output_mode `'tf_idf'` does not support loading a "
                                         r"vocabulary from file"):
        layers.StringLookup(vocabulary=path, output_mode="tf_idf", idf_weights=[1.0, 1.0])
    with pytest.raises(ValueError, match=r"IntegerLookup.set_vocabulary: the vocabulary file "
                                         r".* holds a non-integer token"):
        layers.IntegerLookup(vocabulary=path)
