"""Guards on reading a ``.keras`` archive someone else made: an archive is a list of names
and byte counts that may lie.

* Names: a zip with two entries of one name (which one a reader takes depends on the reader)
  or with a name that climbs out of the archive (``../x``, ``/etc/x``, ``C:x``, ``a\\b``) is
  refused whole. Nothing is ever extracted to disk; entries are read into memory by name.
* Sizes: every entry Lamina reads has a cap on what it may inflate to. The zip's declared
  size is checked first, then the count is enforced while reading in chunks (a declared
  size can lie), so memory never grows past the cap. ``metadata.json`` may hold
  ``MAX_METADATA_BYTES``, ``config.json`` ``MAX_CONFIG_BYTES``; ``model.weights.h5`` what the
  rebuilt model's variables take, times ``WEIGHTS_FACTOR`` (the optimizer's slots) plus
  ``WEIGHTS_SLACK_BYTES`` (HDF5's own bytes), or ``MAX_WEIGHTS_BYTES`` where there is no model
  to size it by (``describe``).
* Ratios: a JSON entry or text asset (a vocabulary) over 1 MiB that inflates more than
  ``MAX_JSON_RATIO`` times (real configs deflate 5 to 150 times, vocabularies 2 to 10) and any entry that inflates more than ``MAX_RATIO`` times
  (more than deflate can reach on any data) is a zip bomb. The weights are not held to the
  JSON ratio: an all-zero array legitimately deflates about 1000 times.
* Nesting: JSON nested more than ``MAX_JSON_DEPTH`` levels is refused before it is parsed
  (Python's parser would fail with a bare RecursionError).
"""
from __future__ import annotations

import json
import os
import re
import zipfile

import numpy as np

from ..dtypes import itemsize
from .errors import CorruptFileError

MiB = 1 << 20
MAX_METADATA_BYTES = 1 * MiB
MAX_CONFIG_BYTES = 64 * MiB
MAX_WEIGHTS_BYTES = 16 * 1024 * MiB
WEIGHTS_FACTOR = 6
WEIGHTS_SLACK_BYTES = 64 * MiB
MAX_JSON_RATIO = 500
MAX_RATIO = 1100
_RATIO_FLOOR = 1 * MiB           # ratios of smaller entries are not worth a refusal
MAX_JSON_DEPTH = 512
_CHUNK = 1 * MiB
_JSON_ENTRIES = ("metadata.json", "config.json")


class UnsafeArchiveError(CorruptFileError):
    """A ``.keras`` archive that is ambiguous, escapes itself, or inflates past a cap."""


def entry_cap(name: str) -> int:
    """The most bytes Lamina reads from the entry ``name`` when no model sizes it."""
    return {"metadata.json": MAX_METADATA_BYTES,
            "config.json": MAX_CONFIG_BYTES}.get(name, MAX_WEIGHTS_BYTES)


def weights_cap(model) -> int:
    """The most bytes ``model.weights.h5`` may hold for ``model``: its variables' bytes for
    the model and the optimizer's slots, plus room for HDF5's own structures."""
    total = 0
    for variable in getattr(model, "weights", ()):
        total += int(np.prod(variable.shape, dtype=np.int64)) * itemsize(str(variable.dtype))
    return WEIGHTS_FACTOR * total + WEIGHTS_SLACK_BYTES


# -------------------------------------------------------------------------------- names
_DRIVE = re.compile(r"^[A-Za-z]:")


def _unsafe_name(name: str) -> str | None:
    """Why ``name`` would leave the archive, or None when it stays inside."""
    if "\\" in name:
        return "it contains a backslash"
    if "\x00" in name:
        return "it contains a NUL character"
    if name.startswith("/"):
        return "it is an absolute path"
    if _DRIVE.match(name):
        return "it names a drive"
    if ".." in name.split("/"):
        return "it climbs out of the archive with '..'"
    return None


def check_names(zf: zipfile.ZipFile, filepath: str) -> None:
    """Refuse an archive with a duplicated entry name or an entry that leaves it."""
    seen = set()
    for info in zf.infolist():
        name = info.filename
        why = _unsafe_name(name)
        if why:
            raise UnsafeArchiveError(f"'{filepath}': refusing the .keras archive: its entry "
                                     f"{name!r} is not a plain name inside it ({why})")
        if name in seen:
            raise UnsafeArchiveError(f"'{filepath}': refusing the .keras archive: it holds two "
                                     f"entries named {name!r}, so which one is the model "
                                     f"would depend on the zip reader")
        seen.add(name)


# -------------------------------------------------------------------------------- sizes
def _too_big(filepath: str, name: str, cap: int, size: str) -> UnsafeArchiveError:
    return UnsafeArchiveError(f"'{filepath}': refusing entry '{name}': it inflates to "
                              f"{size} bytes, more than the {cap} bytes Lamina reads for it")


def _is_text(name: str) -> bool:
    """The JSON entries and text assets (a vocabulary's ``.txt`` / ``.json``)."""
    return name in _JSON_ENTRIES or name.startswith("assets/") and \
        name.endswith((".txt", ".json"))


def _check_ratio(info: zipfile.ZipInfo, filepath: str) -> None:
    if info.file_size <= _RATIO_FLOOR:
        return
    ratio = info.file_size / max(info.compress_size, 1)
    limit = MAX_JSON_RATIO if _is_text(info.filename) else MAX_RATIO
    if ratio > limit:
        raise UnsafeArchiveError(
            f"'{filepath}': refusing entry '{info.filename}': it inflates {ratio:.0f} times "
            f"({info.compress_size} -> {info.file_size} bytes), more than the {limit} times "
            f"Lamina accepts (a zip bomb)")


def _read_bounded(stream, filepath: str, name: str, cap: int) -> bytes:
    """All of ``stream``, refused as soon as it passes ``cap`` bytes."""
    chunks, total = [], 0
    while True:
        chunk = stream.read(min(_CHUNK, cap + 1 - total))
        if not chunk:
            return b"".join(chunks)
        total += len(chunk)
        if total > cap:
            raise _too_big(filepath, name, cap, f"more than {cap}")
        chunks.append(chunk)


def read_member(zf: zipfile.ZipFile, filepath: str, name: str, cap: int) -> bytes:
    """The bytes of entry ``name`` (KeyError if absent), within ``cap``."""
    info = zf.getinfo(name)
    if info.file_size > cap:
        raise _too_big(filepath, name, cap, str(info.file_size))
    _check_ratio(info, filepath)
    with zf.open(info) as stream:            # checks the CRC at the end
        return _read_bounded(stream, filepath, name, cap)


def read_folder_file(path: str, filepath: str, name: str, cap: int) -> bytes:
    """The bytes of ``name`` in a ``.keras`` folder, within ``cap`` (a FIFO or a link to a
    device reports no useful size, so the count is enforced while reading too)."""
    if os.path.isfile(path) and os.path.getsize(path) > cap:
        raise _too_big(filepath, name, cap, str(os.path.getsize(path)))
    with open(path, "rb") as stream:
        return _read_bounded(stream, filepath, name, cap)


# ------------------------------------------------------------------------------ nesting
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_OPEN, _CLOSE = np.frombuffer(b"[{", np.uint8), np.frombuffer(b"]}", np.uint8)


def json_depth(raw: bytes) -> int:
    """How deeply ``raw`` (JSON) nests arrays and objects, strings not counted."""
    codes = np.frombuffer(_STRING.sub(b'""', raw), np.uint8)
    steps = np.isin(codes, _OPEN).astype(np.int64) - np.isin(codes, _CLOSE)
    return int(np.cumsum(steps).max(initial=0))


def loads(raw, filepath: str | None, what: str):
    """``json.loads`` of a config read from ``filepath`` (None: ``what`` says where it came
    from), refusing nesting deeper than ``MAX_JSON_DEPTH`` with an error naming the file;
    other JSON errors (JSONDecodeError, UnicodeDecodeError, TypeError) propagate."""
    if not isinstance(raw, (str, bytes, bytearray)):
        return json.loads(raw)                     # json's own TypeError
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else bytes(raw)
    where = f"'{filepath}': {what}" if filepath is not None else what
    depth = json_depth(data)
    if depth > MAX_JSON_DEPTH:
        raise CorruptFileError(f"{where} nests {depth} levels deep, more than the "
                               f"{MAX_JSON_DEPTH} Lamina reads")
    try:
        return json.loads(raw if isinstance(raw, str) else data.decode("utf-8"))
    except RecursionError:
        raise CorruptFileError(f"{where} nests too deeply for Python's JSON parser (over "
                               f"{MAX_JSON_DEPTH} levels are refused)") from None
