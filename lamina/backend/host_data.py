"""Host-side data for the string preprocessing layers (StringLookup, Hashing,
TextVectorization, ...): Lamina has no string tensor dtype, so these layers take Python or
numpy data, work on it element by element on the host and hand numbers back as tensors.
This is the I/O edge where that data becomes numpy arrays."""
from __future__ import annotations

from typing import Callable

import numpy as np


class RaggedDataError(ValueError):
    """Rows of different lengths where a rectangular array is needed."""


def host_array(data, decode: str = "utf-8") -> np.ndarray:
    """``data`` (a str, a nested list, a numpy array or a Lamina tensor) as a numpy array;
    text becomes an object array of ``str`` (bytes decoded with ``decode``)."""
    if not isinstance(data, (np.ndarray, list, tuple, str, bytes, int, float)) and \
            callable(getattr(data, "numpy", None)):
        data = data.numpy()
    try:
        array = np.asarray(data)
    except ValueError:
        raise RaggedDataError("expected rectangular data (every row the same length); received "
                              "rows of different lengths (ragged data is not supported: pad "
                              "the rows, or pass them one at a time)") from None
    if array.dtype.kind == "S" or (array.dtype == object and _any_bytes(array)):
        array = map_elements(lambda v: v.decode(decode) if isinstance(v, bytes) else v,
                             array, object)
    elif array.dtype.kind == "U":
        array = array.astype(object)
    return array


def _any_bytes(array: np.ndarray) -> bool:
    return any(isinstance(v, bytes) for v in array.reshape(-1).tolist())


def unicode_array(array: np.ndarray) -> np.ndarray:
    """A :func:`host_array` of text as a numpy array of unicode strings (dtype kind 'U'),
    what Keras hands a custom ``standardize`` callable on its non-TensorFlow backends."""
    return np.array(array.tolist(), dtype=str).reshape(array.shape)


def is_text(array: np.ndarray) -> bool:
    """Whether a :func:`host_array` result holds strings."""
    return array.dtype == object and all(isinstance(v, str) for v in array.reshape(-1).tolist())


def map_elements(fn: Callable, array: np.ndarray, dtype) -> np.ndarray:
    """``fn`` applied to every element of ``array``, in an array of the same shape."""
    flat = [fn(v) for v in array.reshape(-1).tolist()]
    out = np.empty(len(flat), dtype=dtype)
    out[:] = flat
    return out.reshape(array.shape)


def ragged_to_dense(rows: list, length: int | None, pad, dtype) -> np.ndarray:
    """A list of lists padded with ``pad`` (or cut) to ``length`` (the longest row's
    length when None), as a 2-D array."""
    width = max((len(r) for r in rows), default=0) if length is None else length
    out = np.full((len(rows), width), pad, dtype=dtype)
    for i, row in enumerate(rows):
        row = row[:width]
        out[i, :len(row)] = row
    return out


def as_list(values) -> list:
    """A 1-D vocabulary or weight list (numpy arrays and tensors become Python values)."""
    return host_array(values).reshape(-1).tolist()
