"""How much a dataset loader reads: the bounded-reading rules of ``.keras`` files
(``lamina/saving/archive_guard.py``) applied to dataset files.

* A loader reads at most ``max_bytes()`` from one file, zip member, gzip stream or tar
  archive: 1 GiB, about 20 times the largest member of any Keras dataset (MNIST's
  ``x_train``, 47 MB), or ``$LAMINA_DATASET_MAX_BYTES``. Declared sizes (a zip entry's, a tar
  member's, a file's) are checked before anything is read, and the count is enforced while
  reading (a declared size can lie), so memory never grows past the cap.
* A zip member that inflates more than ``archive_guard.MAX_RATIO`` times is a zip bomb.
* Arrays: the shape a header declares must account for exactly the bytes that follow it
  before an array is allocated (``safe_npz``, ``mnist.read_idx``).

Every refusal is a ``DatasetFormatError`` naming the dataset and the file.
"""
from __future__ import annotations

import io
import os
import zipfile
import zlib

from ..saving import archive_guard
from ..saving.errors import CorruptFileError
from .files import DatasetFormatError

DEFAULT_MAX_BYTES = 1 << 30
ENV = "LAMINA_DATASET_MAX_BYTES"
_CHUNK = 1 << 20
MAX_ARCHIVE_MEMBERS = 10_000      # a CIFAR archive holds 8; a tar of empty headers is a bomb


def max_bytes() -> int:
    """The most bytes one file, member or archive of a dataset may inflate to."""
    raw = os.environ.get(ENV)
    if raw is None or raw == "":
        return DEFAULT_MAX_BYTES
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value <= 0:
        raise DatasetFormatError(f"datasets: ${ENV} must be a positive number of bytes; "
                                 f"received {raw!r}")
    return value


def _refused(dataset: str, exc: CorruptFileError) -> DatasetFormatError:
    return DatasetFormatError(f"{dataset}: {exc} (${ENV} raises the limit)")


def read_file(path: str, dataset: str) -> bytes:
    """The bytes of the file at ``path``, refused past ``max_bytes()``."""
    try:
        return archive_guard.read_folder_file(path, path, os.path.basename(path), max_bytes())
    except CorruptFileError as exc:
        raise _refused(dataset, exc) from None


def read_member(archive: zipfile.ZipFile, path: str, name: str, dataset: str) -> bytes:
    """The bytes of zip member ``name``: its declared size and inflation ratio checked
    first, then the count while inflating."""
    try:
        return archive_guard.read_member(archive, path, name, max_bytes())
    except CorruptFileError as exc:
        raise _refused(dataset, exc) from None


def gunzip(data: bytes, path: str, dataset: str) -> bytes:
    """``gzip.decompress(data)`` (every member, CRCs checked) refused as soon as it passes
    ``max_bytes()``."""
    reader = Gunzip(io.BytesIO(data), path, dataset)
    return b"".join(iter(lambda: reader.read(_CHUNK), b""))


class Gunzip(io.RawIOBase):
    """A gzip stream read chunk by chunk (for ``tarfile``'s stream mode), with each
    member's CRC and length checked at its end (``tarfile`` itself checks neither, so a
    damaged ``.tar.gz`` could load different data) and the output bounded by
    ``max_bytes()``. ``drain()`` reads to the end, so the last check runs."""

    def __init__(self, source, path: str, dataset: str):
        super().__init__()
        self.source, self.path, self.dataset = source, path, dataset
        self.cap, self.total, self.done = max_bytes(), 0, False
        self.stream, self.pending = zlib.decompressobj(16 + zlib.MAX_WBITS), b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self._chunk(len(buffer))
        buffer[:len(data)] = data
        return len(data)

    def drain(self) -> None:
        while self._chunk(_CHUNK):
            pass

    def _damaged(self, why: str) -> DatasetFormatError:
        return DatasetFormatError(f"{self.dataset}: {self.path}: damaged gzip data ({why})")

    def _next_member(self) -> bool:
        """Start the next gzip member after a finished one; False at the end of the data
        (zero padding after the last member is allowed, as gzip allows it)."""
        tail = self.stream.unused_data.lstrip(b"\0")
        while not tail:
            more = self.source.read(_CHUNK)
            if not more:
                return False
            tail = more.lstrip(b"\0")
        self.stream, self.pending = zlib.decompressobj(16 + zlib.MAX_WBITS), tail
        return True

    def _chunk(self, size: int) -> bytes:
        while not self.done:
            if self.stream.eof and not self._next_member():
                self.done = True
                break
            if not self.pending:
                self.pending = self.source.read(_CHUNK)
                if not self.pending:
                    raise self._damaged("the stream ends before its end marker")
            try:
                out = self.stream.decompress(self.pending, max(1, min(size, self.cap + 1 -
                                                                      self.total)))
            except zlib.error as exc:
                raise self._damaged(f"zlib.error: {exc}") from None
            self.pending = self.stream.unconsumed_tail
            self.total += len(out)
            if self.total > self.cap:
                raise DatasetFormatError(
                    f"{self.dataset}: {self.path}: refusing the gzip data: it inflates to more "
                    f"than {self.cap} bytes, the most Lamina reads for a dataset file (${ENV} "
                    f"raises the limit)")
            if out:
                return out
        return b""


class ArchiveBudget:
    """What reading one tar archive may still take: members and inflated bytes."""

    def __init__(self, path: str, dataset: str):
        self.path, self.dataset = path, dataset
        self.cap, self.total, self.members = max_bytes(), 0, 0

    def take(self, name: str, size: int) -> None:
        """Count one member of ``size`` declared bytes (skipped members are inflated too)."""
        self.members += 1
        self.total += max(int(size), 0)
        if self.members > MAX_ARCHIVE_MEMBERS:
            raise DatasetFormatError(f"{self.dataset}: {self.path}: refusing the archive: it "
                                     f"holds more than {MAX_ARCHIVE_MEMBERS} members")
        if self.total > self.cap:
            raise DatasetFormatError(
                f"{self.dataset}: {self.path}: refusing the archive: its members up to "
                f"{name!r} inflate to {self.total} bytes, more than the {self.cap} bytes "
                f"Lamina reads for a dataset file (${ENV} raises the limit)")
