"""Reuters newswires: 11,228 newswires in 46 topics, each a sequence of word indices.

``load_data(...)``, ``get_word_index()`` and ``get_label_names()`` return what Keras's
``keras.datasets.reuters`` functions return, with the same arguments. They read Keras's
``reuters.npz`` and ``reuters_word_index.json`` from ``path`` (an existing file) or the
cache folder, downloading them on first use; the ragged arrays are read without running
code from the file (see safe_npz).
"""
from __future__ import annotations

import numpy as np

from .files import resolve_cached
from .safe_npz import load_npz
from .word_sequences import (as_object_array, check_sequences, limit_vocabulary,
                             read_word_index, shift, shorter_than, shuffled)

ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
SHA256 = "d6586e694ee56d7a4e65172e12b3e987c03096cb01eab99753921ef915959916"
HOW_TO_SUPPLY = (f"Call reuters.load_data(path=...) with Keras's reuters.npz (arrays x, y; "
                 f"download it from {ORIGIN}reuters.npz).")
WORD_INDEX_HOW_TO = (f"Call reuters.get_word_index(path=...) with Keras's "
                     f"reuters_word_index.json (download it from "
                     f"{ORIGIN}reuters_word_index.json).")
LABEL_NAMES = (
    "cocoa", "grain", "veg-oil", "earn", "acq", "wheat", "copper", "housing", "money-supply",
    "coffee", "sugar", "trade", "reserves", "ship", "cotton", "carcass", "crude", "nat-gas",
    "cpi", "money-fx", "interest", "gnp", "meal-feed", "alum", "oilseed", "gold", "tin",
    "strategic-metal", "livestock", "retail", "ipi", "iron-steel", "rubber", "heat", "jobs",
    "lei", "bop", "zinc", "orange", "pet-chem", "dlr", "gas", "silver", "wpi", "hog", "lead")


def load_data(path="reuters.npz", num_words=None, skip_top=0, maxlen=None, test_split=0.2,
              seed=113, start_char=1, oov_char=2, index_from=3):
    """``(x_train, y_train), (x_test, y_test)``: object arrays of word-index lists and int
    topic labels in [0, 46), split after shuffling at ``1 - test_split``."""
    if not 0 <= test_split < 1:
        raise ValueError(f"reuters.load_data: argument 'test_split' must be in [0, 1); "
                         f"received {test_split}")
    source = resolve_cached("reuters", path, ORIGIN + "reuters.npz", SHA256, HOW_TO_SUPPLY)
    arrays = load_npz(source, "reuters", ("x", "y"))
    check_sequences("reuters", f"{source}[x]", arrays["x"], arrays["y"])
    xs, labels = shuffled(np.random.RandomState(seed), arrays["x"], arrays["y"])
    xs = shift(xs, start_char, index_from)
    if maxlen:
        xs, labels = shorter_than(maxlen, xs, labels)
    xs = limit_vocabulary(xs, num_words, skip_top, oov_char)
    n = int(len(xs) * (1 - test_split))
    return ((as_object_array(xs[:n]), np.array(labels[:n])),
            (as_object_array(xs[n:]), np.array(labels[n:])))


def get_word_index(path="reuters_word_index.json"):
    """``{word: index}``; index 1 is the most frequent word (before ``index_from``)."""
    # Keras checks this file's md5; Lamina's downloader checks sha256 only, so none here.
    source = resolve_cached("reuters", path, ORIGIN + "reuters_word_index.json", None,
                            WORD_INDEX_HOW_TO)
    return read_word_index("reuters", source)


def get_label_names():
    """The 46 topic names, in label order."""
    return LABEL_NAMES
