"""Vocabulary bookkeeping shared by the lookup layers: counting tokens for ``adapt`` and
ordering them as Keras 3 does (most frequent first, ties broken by the token, highest
first), inverse document frequencies, and the ``vocabulary.txt`` asset."""
from __future__ import annotations

import collections
import math
import os

VOCABULARY_FILE = "vocabulary.txt"


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
    with open(os.path.join(dir_path, VOCABULARY_FILE), "w", encoding="utf-8") as f:
        f.write("\n".join(str(w) for w in vocabulary))


def read_vocabulary(dir_path: str, as_int: bool) -> list:
    with open(os.path.join(dir_path, VOCABULARY_FILE), "r", encoding="utf-8") as f:
        lines = f.read().splitlines()
    while lines and lines[-1] == "":
        lines.pop()
    return [int(line) for line in lines] if as_int else lines
