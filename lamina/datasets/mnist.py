"""MNIST handwritten digits: 60,000 training and 10,000 test 28x28 grayscale images.

``load_data()`` returns what ``keras.datasets.mnist.load_data()`` returns. It reads Keras's
``mnist.npz`` or the four original IDX files (raw or gzipped), and downloads Keras's
``mnist.npz`` into the cache folder when no path is given and the file is not there yet.
"""
from __future__ import annotations

import os
import struct

import numpy as np

from . import limits
from .files import DatasetFormatError, DatasetUnavailableError, cache_dir, fetch
from .files import missing_file_error
from .safe_npz import load_npz

ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/mnist.npz"
SHA256 = "731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1"
KEYS = ("x_train", "y_train", "x_test", "y_test")
IDX_NAMES = {"x_train": "train-images-idx3-ubyte", "y_train": "train-labels-idx1-ubyte",
             "x_test": "t10k-images-idx3-ubyte", "y_test": "t10k-labels-idx1-ubyte"}
HOW_TO_SUPPLY = (
    "Call mnist.load_data(path=...) with either Keras's mnist.npz (arrays x_train, y_train, "
    f"x_test, y_test; download it from {ORIGIN}) or a folder holding the four IDX files "
    "train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte and "
    "t10k-labels-idx1-ubyte (each raw or .gz).")

# IDX type codes (third byte of the magic number); values are stored big-endian.
_IDX_DTYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}
_IMAGES_MAGIC, _LABELS_MAGIC = 0x00000803, 0x00000801  # uint8 with 3 and 1 dimensions


def load_data(path: str | os.PathLike | None = None):
    """``(x_train, y_train), (x_test, y_test)``: uint8 images (n, 28, 28) and labels (n,).

    ``path`` is Keras's ``mnist.npz``, or a folder with the four IDX files (or with
    ``mnist.npz``). ``None`` uses ``mnist.npz`` in the cache folder (``~/.lamina/datasets``
    or ``$LAMINA_HOME/datasets``), downloading it from Keras's mirror on first use; a bare
    file name is looked up (and downloaded) in the cache folder, as in Keras.
    """
    source = _resolve(path)
    if os.path.isdir(source):
        arrays = _read_idx_folder(source)
    else:
        arrays = _read_npz(source)
    check_images(arrays, source, "mnist")
    return (arrays["x_train"], arrays["y_train"]), (arrays["x_test"], arrays["y_test"])


def read_idx(path: str, expected_magic: int | None = None, dataset: str = "mnist") -> np.ndarray:
    """The array in one IDX file (raw or gzipped), e.g. ``train-images-idx3-ubyte``.

    The header is the magic number ``0x0000TTDD`` (type code TT, DD dimensions) followed by
    DD big-endian uint32 sizes; the data must fill exactly the rest of the file.
    """
    data = _read_bytes(path, dataset)
    if len(data) < 4:
        raise DatasetFormatError(f"{dataset}: {path}: truncated IDX file: expected at least a "
                                 f"4-byte header; received {len(data)} bytes")
    magic = struct.unpack(">I", data[:4])[0]
    ndim, code = data[3], data[2]
    if data[:2] != b"\0\0" or code not in _IDX_DTYPES or \
            (expected_magic is not None and magic != expected_magic):
        wanted = (f"0x{expected_magic:08x}" if expected_magic is not None else
                  "0x0000TTDD with type code TT one of " +
                  ", ".join(f"0x{c:02x}" for c in _IDX_DTYPES))
        raise DatasetFormatError(f"{dataset}: {path}: bad IDX magic number: expected {wanted}; "
                                 f"received 0x{magic:08x}")
    header = 4 + 4 * ndim
    if len(data) < header:
        raise DatasetFormatError(f"{dataset}: {path}: truncated IDX file: expected a {header}-byte "
                                 f"header for {ndim} dimensions; received {len(data)} bytes")
    shape = struct.unpack(f">{ndim}I", data[4:header])
    dtype = np.dtype(_IDX_DTYPES[code])
    count = int(np.prod(shape, dtype=np.int64))
    expected = header + count * dtype.itemsize
    if len(data) != expected:
        problem = "truncated IDX file" if len(data) < expected else "trailing bytes in IDX file"
        raise DatasetFormatError(f"{dataset}: {path}: {problem}: expected {expected} bytes for "
                                 f"shape {shape}; received {len(data)} bytes")
    array = np.frombuffer(data, dtype=dtype, count=count, offset=header).reshape(shape)
    return array.astype(dtype.newbyteorder("="))  # native byte order, writable copy


def _resolve(path) -> str:
    if path is None:
        return fetch("mnist", os.path.join(cache_dir(), "mnist.npz"), ORIGIN, SHA256,
                     HOW_TO_SUPPLY)
    path = os.path.expanduser(os.fspath(path))
    if os.path.exists(path):
        return path
    if os.path.basename(path) == path:  # Keras's load_data(path="mnist.npz"): a cache name
        return fetch("mnist", os.path.join(cache_dir(), path), ORIGIN, SHA256, HOW_TO_SUPPLY)
    raise missing_file_error("mnist", path, HOW_TO_SUPPLY)


def _read_bytes(path: str, dataset: str = "mnist") -> bytes:
    """The file's bytes, gunzipped when it is gzip data; both bounded (``limits``)."""
    data = limits.read_file(path, dataset)
    if data[:2] != b"\x1f\x8b":  # not gzip: a raw file, whatever its name
        return data
    return limits.gunzip(data, path, dataset)


def find_idx(folder: str, name: str) -> str | None:
    # Some mirrors spell the names with a dot ("t10k-images.idx3-ubyte").
    for base in (name, name.replace("-idx", ".idx")):
        for candidate in (base, base + ".gz"):
            if os.path.isfile(os.path.join(folder, candidate)):
                return os.path.join(folder, candidate)
    return None


def _read_idx_folder(folder: str) -> dict:
    found = {key: find_idx(folder, name) for key, name in IDX_NAMES.items()}
    npz = os.path.join(folder, "mnist.npz")
    if not any(found.values()) and os.path.isfile(npz):
        return _read_npz(npz)
    missing = [IDX_NAMES[key] for key, where in found.items() if where is None]
    if missing:
        raise DatasetUnavailableError(
            f"mnist: folder {folder!r} must hold the four MNIST IDX files; missing "
            f"{', '.join(name + '[.gz]' for name in missing)}. {HOW_TO_SUPPLY}")
    return {key: read_idx(where, _IMAGES_MAGIC if key.startswith("x") else _LABELS_MAGIC)
            for key, where in found.items()}


def _read_npz(path: str) -> dict:
    return load_npz(path, "mnist", KEYS)


def check_images(arrays: dict, source: str, dataset: str) -> None:
    """Both splits hold uint8 28x28 images and as many uint8 labels."""
    for split in ("train", "test"):
        x, y = arrays[f"x_{split}"], arrays[f"y_{split}"]
        if x.dtype != np.uint8 or x.ndim != 3 or y.dtype != np.uint8 or y.ndim != 1 or \
                x.shape[1:] != (28, 28):
            raise DatasetFormatError(
                f"{dataset}: {source}: expected x_{split} uint8 of shape (images, 28, 28) and "
                f"y_{split} uint8 of rank 1; received x_{split} {x.dtype} {x.shape} and "
                f"y_{split} {y.dtype} {y.shape}")
        if len(x) != len(y):
            raise DatasetFormatError(
                f"{dataset}: {source}: expected as many labels as images in the {split} "
                f"split; received {len(x)} images and {len(y)} labels")
