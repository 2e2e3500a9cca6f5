"""IMDB movie reviews: 25,000 training and 25,000 test reviews labelled by sentiment, each a
sequence of word indices (by decreasing frequency).

``load_data(...)`` and ``get_word_index()`` return what Keras's ``keras.datasets.imdb``
functions return, with the same arguments. They read Keras's ``imdb.npz`` and
``imdb_word_index.json`` from ``path`` (an existing file) or the cache folder, downloading
them from Keras's mirror on first use. The ragged arrays are read without running code
from the file (see safe_npz).
"""
from __future__ import annotations

import numpy as np

from .files import resolve_cached
from .safe_npz import load_npz
from .word_sequences import (as_object_array, check_sequences, limit_vocabulary,
                             read_word_index, shift, shorter_than, shuffled)

ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
SHA256 = "69664113be75683a8fe16e3ed0ab59fda8886cb3cd7ada244f7d9544e4676b9f"
HOW_TO_SUPPLY = (
    f"Call imdb.load_data(path=...) with Keras's imdb.npz (arrays x_train, y_train, x_test, "
    f"y_test; download it from {ORIGIN}imdb.npz).")
WORD_INDEX_HOW_TO = (f"Call imdb.get_word_index(path=...) with Keras's imdb_word_index.json "
                     f"(download it from {ORIGIN}imdb_word_index.json).")


def load_data(path="imdb.npz", num_words=None, skip_top=0, maxlen=None, seed=113,
              start_char=1, oov_char=2, index_from=3, **kwargs):
    """``(x_train, y_train), (x_test, y_test)``: object arrays of word-index lists and int
    labels (0 negative, 1 positive)."""
    if kwargs:
        raise TypeError(f"imdb.load_data: unrecognized keyword arguments: {sorted(kwargs)}")
    source = resolve_cached("imdb", path, ORIGIN + "imdb.npz", SHA256, HOW_TO_SUPPLY)
    arrays = load_npz(source, "imdb", ("x_train", "y_train", "x_test", "y_test"))
    for split in ("train", "test"):
        check_sequences("imdb", f"{source}[x_{split}]", arrays[f"x_{split}"],
                        arrays[f"y_{split}"])
    rng = np.random.RandomState(seed)
    x_train, y_train = shuffled(rng, arrays["x_train"], arrays["y_train"])
    x_test, y_test = shuffled(rng, arrays["x_test"], arrays["y_test"])
    x_train = shift(x_train, start_char, index_from)
    x_test = shift(x_test, start_char, index_from)
    if maxlen:
        x_train, y_train = shorter_than(maxlen, x_train, y_train)
        x_test, y_test = shorter_than(maxlen, x_test, y_test)
        if not x_train or not x_test:
            raise ValueError(f"imdb.load_data: no sequence is shorter than maxlen={maxlen} in "
                             f"{'the training' if not x_train else 'the test'} split; "
                             "increase maxlen")
    xs = limit_vocabulary(x_train + x_test, num_words, skip_top, oov_char)
    labels = np.concatenate([y_train, y_test])
    n = len(x_train)
    return (as_object_array(xs[:n]), labels[:n]), (as_object_array(xs[n:]), labels[n:])


def get_word_index(path="imdb_word_index.json"):
    """``{word: index}``; index 1 is the most frequent word (before ``index_from``)."""
    # Keras checks this file's md5; Lamina's downloader checks sha256 only, so none here.
    source = resolve_cached("imdb", path, ORIGIN + "imdb_word_index.json", None,
                            WORD_INDEX_HOW_TO)
    return read_word_index("imdb", source)
