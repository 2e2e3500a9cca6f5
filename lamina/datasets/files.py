"""Shared file handling for the downloadable datasets: the cache folder, a download that
lands in a temporary file and is renamed into place only once complete (and checksummed),
the typed errors a user sees when a file is missing or damaged, and a restricted unpickler.

Nothing here touches the network unless a loader asks for a file that is not on disk.
"""
from __future__ import annotations

import hashlib
import io
import os
import pickle
import shutil
import tempfile
import urllib.request

import numpy as np

from ..errors import LaminaError

__all__ = ["DatasetUnavailableError", "DatasetFormatError", "UnsafePickleError",
           "cache_dir", "file_sha256", "download", "fetch", "resolve_cached", "missing_file_error",
           "load_pickle_safely"]


class DatasetUnavailableError(LaminaError, OSError):
    """A dataset file is not on disk and could not be downloaded."""


class DatasetFormatError(LaminaError, ValueError):
    """A dataset file exists but is corrupt, truncated or not in the expected format."""


class UnsafePickleError(DatasetFormatError, pickle.UnpicklingError):
    """A pickle asked to build an object that the restricted unpickler does not allow."""


def cache_dir() -> str:
    """``$LAMINA_HOME/datasets``, or ``~/.lamina/datasets`` (Keras's ``~/.keras/datasets``)."""
    home = os.environ.get("LAMINA_HOME") or os.path.join(os.path.expanduser("~"), ".lamina")
    return os.path.join(os.path.expanduser(home), "datasets")


def file_sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def download(url: str, dest: str, sha256: str | None = None) -> None:
    """Download ``url`` to ``dest``: into a temporary file in the same folder, checked against
    ``sha256`` when given, then renamed, so an interrupted download never leaves a partial
    ``dest`` behind."""
    folder = os.path.dirname(os.path.abspath(dest))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=os.path.basename(dest) + ".", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=60) as response:
            shutil.copyfileobj(response, out, 1 << 20)
        if sha256 is not None:
            received = file_sha256(tmp)
            if received != sha256:
                raise DatasetFormatError(
                    f"download of {url}: expected sha256 {sha256}; received a file with "
                    f"sha256 {received} (damaged or changed upstream)")
        os.replace(tmp, dest)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def fetch(dataset: str, dest: str, url: str, sha256: str | None, how_to_supply: str) -> str:
    """``dest`` if it exists, else download it from ``url``. Any failure (offline, HTTP error,
    checksum mismatch, unwritable cache) becomes a ``DatasetUnavailableError`` that names the
    missing file and says how to supply it by hand."""
    if os.path.exists(dest):
        return dest
    print(f"{dataset}: downloading data from {url}", flush=True)
    try:
        download(url, dest, sha256)
    except Exception as exc:  # any failure means the same to the user: supply the file
        raise DatasetUnavailableError(
            f"{dataset}: the data file {dest!r} is missing and could not be downloaded from "
            f"{url} ({type(exc).__name__}: {exc}). Download it yourself and put it at that "
            f"path (or set $LAMINA_HOME to move the cache folder), or pass its location: "
            f"{how_to_supply}") from exc
    return dest


def resolve_cached(dataset: str, path, url: str, sha256: str | None,
                   how_to_supply: str) -> str:
    """Keras's ``path`` argument: an existing file is used as is; a bare file name (the
    default, e.g. ``"imdb.npz"``) is looked up in the cache folder and downloaded there
    from ``url`` on first use; any other missing path is an error."""
    path = os.path.expanduser(os.fspath(path))
    if os.path.isfile(path):
        return path
    if os.path.basename(path) == path:
        return fetch(dataset, os.path.join(cache_dir(), path), url, sha256, how_to_supply)
    raise missing_file_error(dataset, path, how_to_supply)


def missing_file_error(dataset: str, path: str, how_to_supply: str) -> DatasetUnavailableError:
    """The error for a user-given path that does not exist (no download is attempted)."""
    return DatasetUnavailableError(
        f"{dataset}: argument 'path' must name an existing file or folder; received {path!r}, "
        f"which does not exist. {how_to_supply}")


# What an array pickle needs: numpy's reconstructors (protocol 2 and protocol 5 forms) and
# dtype, plus ``_codecs.encode`` that Python 3 uses to pickle bytes at protocol 2.
_NP_RECONSTRUCT = np.empty(0).__reduce_ex__(2)[0]
_NP_FROMBUFFER = np.empty(0, np.uint8).__reduce_ex__(5)[0]
_NP_SCALAR = np.int64(0).__reduce__()[0]


class _NdarrayToken:
    """Stands for numpy.ndarray in a pickle: _reconstruct accepts it, calling it is refused
    (the constructor can view a buffer with any offset and strides)."""

    def __call__(self, *args, **kwargs):
        raise UnsafePickleError("refusing to call numpy.ndarray directly; expected it only as "
                                "the type argument of numpy's _reconstruct")


_NDARRAY = _NdarrayToken()


def _reconstruct(subtype, shape, dtype):
    if subtype is not _NDARRAY:
        raise UnsafePickleError(f"refusing to reconstruct an array of type {subtype!r}; "
                                "expected numpy.ndarray")
    if not isinstance(shape, tuple) or shape != (0,):
        # numpy pickles an array as an empty one whose data __setstate__ fills in, so a
        # pickle never needs _reconstruct to allocate (a huge shape would be a MemoryError)
        raise UnsafePickleError(f"refusing numpy's _reconstruct of shape {shape!r}; expected "
                                "(0,), as numpy pickles arrays")
    return _NP_RECONSTRUCT(np.ndarray, shape, dtype)


def _dtype(spec, *args):
    dtype = np.dtype(spec, *args)
    if dtype.hasobject:
        raise UnsafePickleError(f"refusing to build numpy dtype {spec!r}: it holds Python "
                                "objects; expected a plain numeric dtype")
    return dtype


def _frombuffer(buffer, dtype, shape, order):
    return _NP_FROMBUFFER(buffer, _dtype(dtype), shape, order)


def _scalar(dtype, data=None):
    """A numpy scalar (``np.int64(5)`` in a pickled list): a numeric dtype and exactly its
    bytes."""
    if not isinstance(dtype, np.dtype) or dtype.hasobject:
        raise UnsafePickleError(f"refusing a numpy scalar of dtype {dtype!r}; expected a plain "
                                "numeric dtype")
    if isinstance(data, str):                      # a Python 2 pickle's bytes, as latin1
        data = data.encode("latin1")
    if not isinstance(data, bytes) or len(data) != dtype.itemsize:
        raise UnsafePickleError(f"refusing a numpy {dtype} scalar built from "
                                f"{type(data).__name__}; expected {dtype.itemsize} bytes")
    return _NP_SCALAR(dtype, data)


def _latin1_encode(text, encoding="latin1"):
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1"):
        raise UnsafePickleError(f"refusing _codecs.encode({type(text).__name__}, "
                                f"{encoding!r}); expected a str and 'latin1'")
    return text.encode("latin1")


_ALLOWED = {("numpy.core.multiarray", "_reconstruct"): _reconstruct,
            ("numpy._core.multiarray", "_reconstruct"): _reconstruct,
            ("numpy.core.numeric", "_frombuffer"): _frombuffer,
            ("numpy._core.numeric", "_frombuffer"): _frombuffer,
            ("numpy.core.multiarray", "scalar"): _scalar,
            ("numpy._core.multiarray", "scalar"): _scalar,
            ("numpy", "ndarray"): _NDARRAY,
            ("numpy", "dtype"): _dtype,
            ("_codecs", "encode"): _latin1_encode}


def _object_dtype(spec, *args):
    """numpy.dtype for a ragged dataset array (imdb, reuters): plain numeric dtypes and the
    bare object dtype ``O8``, whose elements the pickle itself builds from lists and ints
    (no global can appear inside them but the ones allowed here)."""
    dtype = np.dtype(spec, *args)
    if dtype.hasobject and dtype != np.dtype(object):
        raise UnsafePickleError(f"refusing to build numpy dtype {spec!r}: expected a numeric "
                                "dtype or the plain object dtype")
    return dtype


class _RestrictedUnpickler(pickle.Unpickler):
    """Builds only what a dataset pickle holds; every other global is refused."""

    def __init__(self, *args, object_arrays: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.object_arrays = object_arrays

    def find_class(self, module, name):
        if self.object_arrays and (module, name) == ("numpy", "dtype"):
            return _object_dtype
        allowed = _ALLOWED.get((module, name))
        if allowed is None:
            raise UnsafePickleError(
                f"refusing to unpickle global '{module}.{name}': a dataset pickle may only "
                "hold dicts, lists, bytes, str, numbers and numeric numpy arrays and scalars")
        return allowed

    def persistent_load(self, pid):
        raise UnsafePickleError("refusing a persistent id: a dataset pickle has none")


def load_pickle_safely(raw, encoding: str = "bytes", object_arrays: bool = False):
    """Unpickle ``raw`` (bytes or a binary file; e.g. a CIFAR batch, pickled by Python 2,
    hence ``encoding="bytes"``) without running code: only dicts, lists, tuples, bytes, str,
    numbers and numeric numpy arrays can be built (and, with ``object_arrays``, arrays of
    the plain object dtype holding such values: imdb's and reuters's ragged sequences); any
    other global raises ``UnsafePickleError``."""
    handle = io.BytesIO(raw) if isinstance(raw, (bytes, bytearray)) else raw
    return _RestrictedUnpickler(handle, encoding=encoding, object_arrays=object_arrays).load()
