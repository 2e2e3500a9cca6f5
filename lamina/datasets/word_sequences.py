"""What ``imdb`` and ``reuters`` do to their word-index sequences, as Keras does it: shuffle
with ``np.random.RandomState(seed)``, prepend ``start_char`` and shift indices by
``index_from``, drop sequences not shorter than ``maxlen``, and map words outside
``[skip_top, num_words)`` to ``oov_char`` (or drop them when ``oov_char`` is None)."""
from __future__ import annotations

import numpy as np

from ..saving import archive_guard
from ..saving.errors import CorruptFileError
from . import limits
from .files import DatasetFormatError


def check_sequences(dataset: str, where: str, xs, labels) -> None:
    if xs.ndim != 1 or labels.ndim != 1 or len(xs) != len(labels):
        raise DatasetFormatError(
            f"{dataset}: {where}: expected a 1-d array of sequences and as many labels; "
            f"received shapes {xs.shape} and {labels.shape}")
    for k, seq in enumerate(xs):
        if not isinstance(seq, (list, np.ndarray)) or \
                not all(isinstance(w, (int, np.integer)) for w in seq):
            raise DatasetFormatError(f"{dataset}: {where}: expected sequence {k} to be a list "
                                     f"of ints; received {type(seq).__name__}")


def shuffled(rng, xs, labels):
    order = np.arange(len(xs))
    rng.shuffle(order)
    return xs[order], labels[order]


def shift(xs, start_char, index_from):
    """Each sequence as a list, indices moved up by ``index_from`` after ``start_char``."""
    head = [] if start_char is None else [start_char]
    offset = index_from if (start_char is not None or index_from) else 0
    return [head + [int(w) + offset for w in seq] for seq in xs]


def shorter_than(maxlen, xs, labels):
    kept = [(seq, label) for seq, label in zip(xs, labels) if len(seq) < maxlen]
    return [seq for seq, _ in kept], [label for _, label in kept]


def limit_vocabulary(xs, num_words, skip_top, oov_char):
    if not num_words:
        num_words = max(max(seq) for seq in xs)
    if oov_char is not None:
        return [[w if skip_top <= w < num_words else oov_char for w in seq] for seq in xs]
    return [[w for w in seq if skip_top <= w < num_words] for seq in xs]


def as_object_array(sequences):
    # np.array(..., dtype=object) as Keras: 1-d for ragged sequences (real data), 2-d in
    # the corner case where every sequence has the same length.
    return np.array(sequences, dtype=object)


def read_word_index(dataset: str, path: str) -> dict:
    raw = limits.read_file(path, dataset)
    try:
        index = archive_guard.loads(raw, path, "the word index")
    except CorruptFileError as exc:
        raise DatasetFormatError(f"{dataset}: {exc}") from None
    except ValueError as exc:
        raise DatasetFormatError(f"{dataset}: {path}: not a readable JSON word index "
                                 f"({type(exc).__name__}: {exc})") from exc
    if not isinstance(index, dict):
        raise DatasetFormatError(f"{dataset}: {path}: expected a JSON object mapping words "
                                 f"to indices; received {type(index).__name__}")
    return index
