"""Vocabulary bookkeeping shared by the lookup layers: counting tokens for ``adapt`` and
ordering them as Keras 3 does (most frequent first, ties broken by the token, highest
first), inverse document frequencies, and the ``vocabulary.txt`` asset."""
from __future__ import annotations

import collections
import json
import math
import os

from ...errors import AssetError

VOCABULARY_FILE = "vocabulary.txt"
EXACT_FILE = "vocabulary.json"


class TokenCounter:
    """Token counts (and, for tf_idf, document counts) accumulated over ``adapt`` batches."""

    def __init__(self):
        self.counts = collections.Counter()
        self.document_counts = collections.Counter()
        self.documents = 0

    def update(self, documents: list) -> None:
        """``documents``: a list of token lists (one per sample)."""
        for tokens in documents:
            self.counts.update(tokens)
            self.document_counts.update(set(tokens))
        self.documents += len(documents)

    def ordered(self, drop: tuple, limit: int | None) -> list:
        """The tokens by count, highest first, ties by token, highest first (Keras's
        ``np.lexsort((tokens, counts))[::-1]``), without ``drop``, at most ``limit``."""
        tokens = [t for t in self.counts if t not in drop]
        tokens.sort(key=lambda t: (self.counts[t], t), reverse=True)
        return tokens if limit is None else tokens[:max(limit, 0)]

    def idf(self, tokens: list) -> list:
        """Keras's ``log(1 + documents / (1 + document_count))`` per token."""
        return [math.log(1 + self.documents / (1 + self.document_counts[t])) for t in tokens]


def repeated(tokens: list) -> list:
    return [t for t, n in collections.Counter(tokens).items() if n > 1]


def write_vocabulary(dir_path: str, vocabulary: list) -> None:
    """``vocabulary.txt`` as Keras writes it (one entry per line), which Keras reads back
    with ``splitlines()`` and drops trailing empty lines. When that would not give these
    entries back (an entry holding a line break of any kind -- ``\\n``, ``\\r``,
    ``\\u2028``, ``\\x85``... -- or a trailing empty entry), the exact list is also
    written as ``vocabulary.json``, which Lamina reads first; Keras ignores it."""
    entries = [str(w) for w in vocabulary]
    data = "\n".join(entries).encode("utf-8", errors="replace")    # (lone surrogates)
    with open(os.path.join(dir_path, VOCABULARY_FILE), "wb") as f:
        f.write(data)
    if _keras_lines(data.decode("utf-8")) != entries:
        with open(os.path.join(dir_path, EXACT_FILE), "w", encoding="ascii") as f:
            json.dump(entries, f)


def _keras_lines(text: str) -> list:
    lines = text.splitlines()
    while lines and lines[-1] == "":
        lines.pop()
    return lines


def read_vocabulary(dir_path: str, as_int: bool, declared_size: int | None = None) -> list:
    """The vocabulary saved by :func:`write_vocabulary` (or by Keras). A missing or
    malformed file, repeated entries, or a count other than the ``declared_size`` the
    layer's config gives is an :class:`AssetError` naming the file."""
    exact = os.path.join(dir_path, EXACT_FILE)
    if os.path.isfile(exact):
        name = EXACT_FILE
        try:
            with open(exact, "r", encoding="utf-8") as f:
                values = json.load(f)
        except (ValueError, UnicodeDecodeError) as exc:
            raise AssetError(EXACT_FILE, f"not a JSON list of strings ({exc})") from None
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise AssetError(EXACT_FILE, f"expected a JSON list of strings; received "
                             f"{type(values).__name__}")
    else:
        name = VOCABULARY_FILE
        path = os.path.join(dir_path, VOCABULARY_FILE)
        if not os.path.isfile(path):
            raise AssetError(VOCABULARY_FILE, "the vocabulary file is missing" +
                             (" (a folder has its name)" if os.path.isdir(path) else ""))
        try:
            with open(path, "r", encoding="utf-8") as f:
                values = _keras_lines(f.read())
        except UnicodeDecodeError as exc:
            raise AssetError(VOCABULARY_FILE, f"not UTF-8 text ({exc})") from None
    if declared_size is not None and len(values) != declared_size:
        raise AssetError(name, f"the layer's config declares {declared_size} vocabulary "
                         f"entries; the file holds {len(values)}")
    doubled = repeated(values)
    if doubled:
        raise AssetError(name, f"the vocabulary repeats the entries {doubled[:5]}; every "
                         f"entry must appear once")
    if as_int:
        try:
            return [int(v) for v in values]
        except ValueError as exc:
            raise AssetError(name, f"an integer vocabulary holds a non-integer entry "
                             f"({exc})") from None
    return values
