"""TextVectorization's string steps, as TensorFlow's string ops do them: ASCII-only
lowercasing (``tf.strings.lower``), removal of ASCII punctuation (Keras's regex),
splitting on ASCII whitespace (``tf.strings.split``) or into characters, and ngrams joined
by a space, all widths in turn (``tf.strings.ngrams``)."""
from __future__ import annotations

import re
import string

_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
_PUNCTUATION = str.maketrans("", "", string.punctuation)
_WHITESPACE = re.compile(r"[ \t\n\v\f\r]+")

STANDARDIZE = ("lower_and_strip_punctuation", "lower", "strip_punctuation")
SPLIT = ("whitespace", "character")


def standardize_text(text: str, mode: str) -> str:
    if mode in ("lower", "lower_and_strip_punctuation"):
        text = text.translate(_LOWER)
    if mode in ("strip_punctuation", "lower_and_strip_punctuation"):
        text = text.translate(_PUNCTUATION)
    return text


def split_text(text: str, mode: str) -> list:
    if mode == "whitespace":
        return [t for t in _WHITESPACE.split(text) if t]
    return list(text)


def ngrams(tokens: list, widths: tuple) -> list:
    out = []
    for width in widths:
        out.extend(" ".join(tokens[i:i + width]) for i in range(len(tokens) - width + 1))
    return out
