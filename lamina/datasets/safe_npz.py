"""Reading a dataset ``.npz`` without running code from it, within bounds.

``np.load(..., allow_pickle=True)``, which the ragged arrays of imdb and reuters need,
unpickles whatever the file holds. Here numeric members are read with pickling disabled,
and object members (arrays of lists of ints) go through the restricted unpickler of
``files``, which can build nothing but containers, numbers and numpy arrays.

Members are read as ``.keras`` entries are (``limits``: declared size and inflation ratio
checked, then the count while inflating), and a numeric member's header must declare a
shape whose bytes are exactly the bytes that follow it before its array is allocated.
"""
from __future__ import annotations

import io
import zipfile
import zlib

import numpy as np

from . import limits
from .files import DatasetFormatError, UnsafePickleError, load_pickle_safely


def load_npz(path: str, dataset: str, keys) -> dict:
    """``{key: array}`` for each of ``keys`` in the ``.npz`` at ``path``."""
    try:
        with zipfile.ZipFile(path) as archive:
            members = {name[:-4]: name for name in archive.namelist() if name.endswith(".npy")}
            missing = [key for key in keys if key not in members]
            if missing:
                raise DatasetFormatError(
                    f"{dataset}: {path}: expected an .npz with arrays {', '.join(keys)}; "
                    f"missing {', '.join(missing)} (found {', '.join(members) or 'none'})")
            return {key: _read_member(limits.read_member(archive, path, members[key], dataset),
                                      f"{path}[{key}]", dataset) for key in keys}
    except (DatasetFormatError, UnsafePickleError):
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
        raise DatasetFormatError(f"{dataset}: {path}: not a readable .npz file "
                                 f"({type(exc).__name__}: {exc})") from exc


def _read_member(raw: bytes, where: str, dataset: str):
    handle = io.BytesIO(raw)
    version = np.lib.format.read_magic(handle)
    if version[0] == 1:
        shape, _, dtype = np.lib.format.read_array_header_1_0(handle)
    elif version[0] in (2, 3):
        shape, _, dtype = np.lib.format.read_array_header_2_0(handle)
    else:
        raise DatasetFormatError(f"{dataset}: {where}: unsupported .npy version {version}")
    if not dtype.hasobject:
        count = 1
        for size in shape:
            count *= int(size)
        held = len(raw) - handle.tell()
        if count * dtype.itemsize != held:
            raise DatasetFormatError(
                f"{dataset}: {where}: its header declares a {dtype} array of shape "
                f"{tuple(shape)} ({count * dtype.itemsize} bytes); the member holds {held} "
                f"bytes of data")
        return np.lib.format.read_array(io.BytesIO(raw), allow_pickle=False)
    try:
        array = load_pickle_safely(handle, encoding="latin1", object_arrays=True)
    except UnsafePickleError as exc:
        raise UnsafePickleError(f"{dataset}: {where}: {exc}") from None
    except Exception as exc:  # a damaged pickle fails in many ways; all mean "corrupt"
        raise DatasetFormatError(f"{dataset}: {where}: not a readable object array "
                                 f"({type(exc).__name__}: {exc})") from exc
    if not isinstance(array, np.ndarray) or array.shape != tuple(shape):
        raise DatasetFormatError(f"{dataset}: {where}: expected an array of shape "
                                 f"{tuple(shape)}; received {type(array).__name__}")
    return array
