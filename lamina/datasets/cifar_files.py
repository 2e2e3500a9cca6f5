"""The CIFAR file formats shared by ``cifar10`` and ``cifar100``: the "python version"
folder or its ``.tar.gz`` archive, read in one streaming pass (members are never extracted,
so their names cannot escape a folder), and batch pickles read with the restricted
unpickler (``files.load_pickle_safely``: dicts, lists, bytes, str, ints and numeric numpy
arrays only)."""
from __future__ import annotations

import os
import posixpath
import tarfile
import zlib
from dataclasses import dataclass

import numpy as np

from . import limits
from .files import DatasetFormatError, DatasetUnavailableError, UnsafePickleError
from .files import cache_dir, fetch, load_pickle_safely, missing_file_error


@dataclass(frozen=True)
class CifarFormat:
    """Where one CIFAR dataset lives and what its pickles hold."""
    dataset: str            # "cifar10", used in messages
    title: str              # "CIFAR-10"
    origin: str
    sha256: str
    folder: str             # the folder the archive extracts to
    archive: str
    train: tuple            # batch names
    test: str
    how_to_supply: str
    label_dtype: str = "uint8"  # Keras: uint8 for CIFAR-10, int64 (a reshaped list) for 100

    @property
    def names(self):
        return self.train + (self.test,)


def load_batches(fmt: CifarFormat, path, label_key: str):
    """``(x_train, y_train), (x_test, y_test)``: uint8 images (n, 32, 32, 3), channels last,
    and labels (n, 1) taken from ``label_key`` of each pickle."""
    source = resolve(fmt, path)
    raw = (read_folder(fmt, source) if os.path.isdir(source) else read_archive(fmt, source))
    train = [parse_batch(fmt, raw[name], f"{source}/{name}", label_key) for name in fmt.train]
    x_train = np.concatenate([x for x, _ in train])
    y_train = np.concatenate([y for _, y in train])
    x_test, y_test = parse_batch(fmt, raw[fmt.test], f"{source}/{fmt.test}", label_key)
    return (channels_last(x_train), y_train), (channels_last(x_test), y_test)


def channels_last(images):
    # Keras's layout (Lamina has no other image_data_format). One channel at a time is ~8x
    # faster than a contiguous copy of the 4-d transpose, which strides badly through memory.
    out = np.empty((len(images), 32, 32, 3), np.uint8)
    for channel in range(3):
        out[..., channel] = images[:, channel]
    return out


def resolve(fmt: CifarFormat, path) -> str:
    if path is None:
        folder = os.path.join(cache_dir(), fmt.folder)
        if os.path.isdir(folder):
            return folder
        return fetch(fmt.dataset, os.path.join(cache_dir(), fmt.archive), fmt.origin,
                     fmt.sha256, fmt.how_to_supply)
    path = os.path.expanduser(os.fspath(path))
    if not os.path.exists(path):
        raise missing_file_error(fmt.dataset, path, fmt.how_to_supply)
    if os.path.isdir(path) and not os.path.exists(os.path.join(path, fmt.train[0])):
        for candidate in (os.path.join(path, fmt.folder), os.path.join(path, fmt.archive)):
            if os.path.exists(candidate):
                return candidate
    return path


def read_folder(fmt: CifarFormat, folder: str) -> dict:
    names = fmt.names
    missing = [name for name in names if not os.path.isfile(os.path.join(folder, name))]
    if missing:
        raise DatasetUnavailableError(f"{fmt.dataset}: folder {folder!r} must hold the {fmt.title} "
                                      f"batches; missing {', '.join(missing)}. "
                                      f"{fmt.how_to_supply}")
    return {name: limits.read_file(os.path.join(folder, name), fmt.dataset) for name in names}


def read_archive(fmt: CifarFormat, path: str) -> dict:
    names = fmt.names
    # One streaming pass: seeking back and forth in a .tar.gz would decompress it repeatedly.
    # Members are read into memory, never extracted, so their names cannot escape a folder;
    # what they inflate to in all is bounded (limits.ArchiveBudget), skipped ones included.
    raw, budget = {}, limits.ArchiveBudget(path, fmt.dataset)
    try:
        with open(path, "rb") as handle:
            gzipped = handle.read(2) == b"\x1f\x8b"
            handle.seek(0)
            # gzip through limits.Gunzip: tarfile's own gzip reading checks no CRC
            source = limits.Gunzip(handle, path, fmt.dataset) if gzipped else handle
            with tarfile.open(fileobj=source, mode="r|" if gzipped else "r|*") as archive:
                for member in archive:
                    budget.take(member.name, member.size)   # declared: checked before reading
                    name = posixpath.basename(member.name)
                    if member.isfile() and name in names and name not in raw:
                        raw[name] = archive.extractfile(member).read()
            if gzipped:
                source.drain()
    except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:
        raise DatasetFormatError(f"{fmt.dataset}: {path}: not a readable tar archive "
                                 f"({type(exc).__name__}: {exc})") from exc
    missing = [name for name in names if name not in raw]
    if missing:
        raise DatasetFormatError(f"{fmt.dataset}: {path}: expected the archive to hold "
                                 f"{fmt.folder}/{{{', '.join(names)}}}; missing {', '.join(missing)}")
    return raw


def parse_batch(fmt: CifarFormat, raw: bytes, where: str, label_key: str):
    """Images (n, 3, 32, 32) and labels (n, 1) from one batch pickle."""
    try:
        batch = load_pickle_safely(raw)
    except UnsafePickleError as exc:
        raise UnsafePickleError(f"{fmt.dataset}: {where}: {exc}") from None
    except Exception as exc:  # a damaged pickle can fail in many ways; all mean "corrupt"
        raise DatasetFormatError(f"{fmt.dataset}: {where}: not a readable {fmt.title} batch pickle "
                                 f"({type(exc).__name__}: {exc})") from exc
    if not isinstance(batch, dict):
        raise DatasetFormatError(f"{fmt.dataset}: {where}: expected a pickled dict; "
                                 f"received {type(batch).__name__}")
    batch = {key.decode("latin1") if isinstance(key, bytes) else key: value
             for key, value in batch.items()}
    data, labels = batch.get("data"), batch.get(label_key)
    if not isinstance(data, np.ndarray) or data.dtype != np.uint8 or data.ndim != 2 \
            or data.shape[1] != 3 * 32 * 32:
        received = (f"{data.dtype} array of shape {data.shape}" if isinstance(data, np.ndarray)
                    else type(data).__name__)
        raise DatasetFormatError(f"{fmt.dataset}: {where}: expected 'data' to be a uint8 array of "
                                 f"shape (n, 3072); received {received}")
    if not isinstance(labels, list) or len(labels) != len(data) or \
            not all(isinstance(label, int) and 0 <= label < 256 for label in labels):
        received = (f"{len(labels)} entries" if isinstance(labels, list)
                    else type(labels).__name__)
        raise DatasetFormatError(f"{fmt.dataset}: {where}: expected {label_key!r} to be a list of "
                                 f"{len(data)} ints in [0, 255]; received {received}")
    return (data.reshape(len(data), 3, 32, 32),
            np.array(labels, fmt.label_dtype).reshape(-1, 1))
