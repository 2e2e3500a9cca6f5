"""Crash-safe writes: the file appears whole or not at all.

Everything is written to a temporary file in the target's folder (so the final rename stays
on one filesystem), flushed to disk, then moved over the target with ``os.replace``, which
is atomic on POSIX and Windows. If writing fails, the temporary file is removed and the
previous file at the target path is left as it was. A process killed mid-write (SIGKILL,
power loss) can leave a ``.<name>.<pid>.<random>.tmp`` file beside the target, never a
half-written target.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import uuid
from typing import Iterator

from .errors import SavedFileNotFoundError


def temporary_name(filepath: str) -> str:
    folder, base = os.path.split(os.path.abspath(filepath))
    return os.path.join(folder, f".{base}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")


def is_temporary_for(filepath: str, candidate: str) -> bool:
    """Whether ``candidate`` (a name in the target's folder) is one of our temporary files."""
    base = os.path.basename(filepath)
    return candidate.startswith(f".{base}.") and candidate.endswith(".tmp")


@contextlib.contextmanager
def atomic_path(filepath: str, what: str = "save") -> Iterator[str]:
    """Yield a temporary path to write; on success it replaces ``filepath`` atomically."""
    folder = os.path.dirname(os.path.abspath(filepath))
    if not os.path.isdir(folder):
        raise SavedFileNotFoundError(f"{what}: cannot write '{filepath}': the folder "
                                     f"'{folder}' does not exist")
    temporary = temporary_name(filepath)
    # O_EXCL: never write through someone else's file; 0o666 lets the umask decide the mode.
    os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    try:
        yield temporary
        _fsync(temporary)
        os.replace(temporary, filepath)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(temporary)
        raise
    _fsync_folder(folder)


@contextlib.contextmanager
def atomic_folder(path: str, what: str = "save") -> Iterator[str]:
    """Yield a temporary folder to fill; on success it takes the place of ``path``.

    A folder cannot be swapped in one step: the old one is moved aside, the new one moved in,
    then the old one removed, so a crash between the two moves leaves the previous contents
    in a ``.<name>.<pid>.<random>.tmp`` folder beside ``path``.
    """
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise SavedFileNotFoundError(f"{what}: cannot write '{path}': the folder "
                                     f"'{parent}' does not exist")
    temporary, old = temporary_name(path), None
    os.mkdir(temporary)
    try:
        yield temporary
        for name in os.listdir(temporary):
            _fsync(os.path.join(temporary, name))
        if os.path.isdir(path) and not os.path.islink(path):
            old = temporary_name(path)
            os.replace(path, old)
        elif os.path.lexists(path):
            os.remove(path)
        os.replace(temporary, path)
    except BaseException:
        if old is not None and not os.path.lexists(path):
            os.replace(old, path)          # put the previous folder back
            old = None
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    _fsync_folder(parent)


def _fsync(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_folder(folder: str) -> None:
    # Makes the rename itself durable; folders cannot be opened on Windows, hence best effort.
    with contextlib.suppress(OSError, AttributeError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
