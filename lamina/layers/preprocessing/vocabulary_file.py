"""A lookup layer's ``vocabulary`` given as the path of a text file (Keras 3's
``StringLookup(vocabulary="vocab.txt")``): one token per line, read once when the
vocabulary is set. As in Keras, the config then holds no vocabulary; a saved model keeps it
as its vocabulary asset, and a file path is refused while a model loads in safe mode."""
from __future__ import annotations

import os

from ...registry.safe_mode import scoped_safe_mode


def read_vocabulary_file(owner: str, path: str, as_int: bool, tf_idf: bool) -> list:
    """The tokens of the file at ``path``, one per line (TensorFlow's whole-line reading:
    lines end at ``\\n``, a trailing ``\\r`` is dropped, the last line break ends the last
    line); ints for an integer vocabulary."""
    if scoped_safe_mode() is True:             # a model is loading in safe mode
        raise ValueError(f"{owner}: Requested the loading of a vocabulary file outside of "
                         f"the model archive, which safe mode disallows; pass "
                         f"safe_mode=False to the loading function if you trust the source. "
                         f"Vocabulary file: {path!r}")
    if not os.path.isfile(path):
        raise ValueError(f"{owner}: Vocabulary file {path} does not exist (argument "
                         f"'vocabulary' names no file)")
    if tf_idf:
        raise ValueError(f"{owner}: output_mode `'tf_idf'` does not support loading a "
                         f"vocabulary from file; pass the tokens and 'idf_weights' as lists")
    with open(path, "r", encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    tokens = [line[:-1] if line.endswith("\r") else line for line in lines]
    if not as_int:
        return tokens
    try:
        return [int(t) for t in tokens]
    except ValueError as exc:
        raise ValueError(f"{owner}: the vocabulary file {path} holds a non-integer token "
                         f"({exc})") from None

