"""CIFAR-10: 50,000 training and 10,000 test 32x32 colour images in 10 classes.

``load_data()`` returns what ``keras.datasets.cifar10.load_data()`` returns. It reads the
"CIFAR-10 python version": the folder ``cifar-10-batches-py`` or the archive
``cifar-10-python.tar.gz``, downloaded into the cache folder on first use.

The batches are pickles, and unpickling can run arbitrary code, so they are read with
``files.load_pickle_safely``, which builds only dicts, lists, bytes, str, ints and numeric
numpy arrays and refuses everything else with ``UnsafePickleError``.
"""
from __future__ import annotations

import os
import posixpath
import tarfile
import zlib

import numpy as np

from .files import DatasetFormatError, DatasetUnavailableError, UnsafePickleError
from .files import cache_dir, fetch, load_pickle_safely, missing_file_error

ORIGIN = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
SHA256 = "6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce"
FOLDER, ARCHIVE = "cifar-10-batches-py", "cifar-10-python.tar.gz"
TRAIN_BATCHES = tuple(f"data_batch_{i}" for i in range(1, 6))
TEST_BATCH = "test_batch"
HOW_TO_SUPPLY = (
    f"Call cifar10.load_data(path=...) with the archive {ARCHIVE} (download it from "
    f"{ORIGIN}) or the folder {FOLDER} extracted from it (data_batch_1 .. data_batch_5 and "
    "test_batch).")


def load_data(path: str | os.PathLike | None = None):
    """``(x_train, y_train), (x_test, y_test)``: uint8 images (n, 32, 32, 3), channels last,
    and uint8 labels (n, 1), as in Keras.

    ``path`` is the archive, the extracted folder, or a folder holding either. ``None`` uses
    the cache folder (``~/.lamina/datasets`` or ``$LAMINA_HOME/datasets``), downloading the
    archive on first use.
    """
    source = _resolve(path)
    names = TRAIN_BATCHES + (TEST_BATCH,)
    raw = _read_folder(source, names) if os.path.isdir(source) else _read_archive(source, names)
    train = [_parse_batch(raw[name], f"{source}/{name}") for name in TRAIN_BATCHES]
    x_train = np.concatenate([x for x, _ in train])
    y_train = np.concatenate([y for _, y in train])
    x_test, y_test = _parse_batch(raw[TEST_BATCH], f"{source}/{TEST_BATCH}")
    return (_channels_last(x_train), y_train), (_channels_last(x_test), y_test)


def _channels_last(images):
    # Keras's layout (Lamina has no other image_data_format). One channel at a time is ~8x
    # faster than a contiguous copy of the 4-d transpose, which strides badly through memory.
    out = np.empty((len(images), 32, 32, 3), np.uint8)
    for channel in range(3):
        out[..., channel] = images[:, channel]
    return out


def _resolve(path) -> str:
    if path is None:
        folder = os.path.join(cache_dir(), FOLDER)
        if os.path.isdir(folder):
            return folder
        return fetch("cifar10", os.path.join(cache_dir(), ARCHIVE), ORIGIN, SHA256,
                     HOW_TO_SUPPLY)
    path = os.path.expanduser(os.fspath(path))
    if not os.path.exists(path):
        raise missing_file_error("cifar10", path, HOW_TO_SUPPLY)
    if os.path.isdir(path) and not os.path.exists(os.path.join(path, TRAIN_BATCHES[0])):
        for candidate in (os.path.join(path, FOLDER), os.path.join(path, ARCHIVE)):
            if os.path.exists(candidate):
                return candidate
    return path


def _read_folder(folder: str, names) -> dict:
    missing = [name for name in names if not os.path.isfile(os.path.join(folder, name))]
    if missing:
        raise DatasetUnavailableError(f"cifar10: folder {folder!r} must hold the CIFAR-10 "
                                      f"batches; missing {', '.join(missing)}. {HOW_TO_SUPPLY}")
    raw = {}
    for name in names:
        with open(os.path.join(folder, name), "rb") as handle:
            raw[name] = handle.read()
    return raw


def _read_archive(path: str, names) -> dict:
    # One streaming pass: seeking back and forth in a .tar.gz would decompress it repeatedly.
    # Members are read into memory, never extracted, so their names cannot escape a folder.
    raw = {}
    try:
        with tarfile.open(path, "r|*") as archive:
            for member in archive:
                name = posixpath.basename(member.name)
                if member.isfile() and name in names and name not in raw:
                    raw[name] = archive.extractfile(member).read()
    except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:
        raise DatasetFormatError(f"cifar10: {path}: not a readable tar archive "
                                 f"({type(exc).__name__}: {exc})") from exc
    missing = [name for name in names if name not in raw]
    if missing:
        raise DatasetFormatError(f"cifar10: {path}: expected the archive to hold "
                                 f"{FOLDER}/{{{', '.join(names)}}}; missing {', '.join(missing)}")
    return raw


def _parse_batch(raw: bytes, where: str):
    """Images (n, 3, 32, 32) and labels (n, 1) from one batch pickle."""
    try:
        batch = load_pickle_safely(raw)
    except UnsafePickleError as exc:
        raise UnsafePickleError(f"cifar10: {where}: {exc}") from None
    except Exception as exc:  # a damaged pickle can fail in many ways; all mean "corrupt"
        raise DatasetFormatError(f"cifar10: {where}: not a readable CIFAR-10 batch pickle "
                                 f"({type(exc).__name__}: {exc})") from exc
    if not isinstance(batch, dict):
        raise DatasetFormatError(f"cifar10: {where}: expected a pickled dict; "
                                 f"received {type(batch).__name__}")
    batch = {key.decode("latin1") if isinstance(key, bytes) else key: value
             for key, value in batch.items()}
    data, labels = batch.get("data"), batch.get("labels")
    if not isinstance(data, np.ndarray) or data.dtype != np.uint8 or data.ndim != 2 \
            or data.shape[1] != 3 * 32 * 32:
        received = (f"{data.dtype} array of shape {data.shape}" if isinstance(data, np.ndarray)
                    else type(data).__name__)
        raise DatasetFormatError(f"cifar10: {where}: expected 'data' to be a uint8 array of "
                                 f"shape (n, 3072); received {received}")
    if not isinstance(labels, list) or len(labels) != len(data) or \
            not all(isinstance(label, int) and 0 <= label < 256 for label in labels):
        received = (f"{len(labels)} entries" if isinstance(labels, list)
                    else type(labels).__name__)
        raise DatasetFormatError(f"cifar10: {where}: expected 'labels' to be a list of "
                                 f"{len(data)} ints in [0, 255]; received {received}")
    return data.reshape(len(data), 3, 32, 32), np.array(labels, np.uint8).reshape(-1, 1)
