"""Crash-safe writes: the file appears whole or not at all.

Everything is written to a temporary file in the target's folder (so the final rename stays
on one filesystem), flushed to disk, then moved over the target with ``os.replace``, which
is atomic on POSIX and Windows. If writing fails, the temporary file is removed and the
previous file at the target path is left as it was. A process killed mid-write (SIGKILL,
power loss) can leave a ``.<name>.<pid>.<random>.tmp`` file beside the target, never a
half-written target; the next save to that folder removes such files once their writer's
process is gone.

HDF5 files are built in memory (:func:`atomic_image`) and written with Python I/O: HDF5's
own writes cannot fail cleanly (a full disk made it crash with SIGSEGV). Every failure of
the system (disk full, file too large, read-only, not a folder, name too long) becomes a
:class:`~.errors.FileWriteError` naming the user's path and the cause.
"""
from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import os
import re
import shutil
import stat
import uuid
from typing import Iterator

from ..errors import LaminaError
from .errors import FileWriteError, SavedFileNotFoundError

# .<name>.<pid>.<8 hex>.tmp; <name> is the target's, shortened with a hash when too long.
_TEMPORARY = re.compile(r"\.(?P<stem>.+)\.(?P<pid>[1-9][0-9]{0,9})\.[0-9a-f]{8}\.tmp", re.S)
_PID_ROOM = 10                      # digits kept free for any pid: a stem never depends on it
_FIXED = len("..") + _PID_ROOM + len(".12345678.tmp")
_HASH = 8


def name_max(folder: str) -> int:
    """The longest file name (in bytes) the file system of ``folder`` takes."""
    try:
        return int(os.pathconf(folder, "PC_NAME_MAX"))
    except (OSError, ValueError, AttributeError):
        return 255


def _digest(base: str) -> str:
    return hashlib.sha256(os.fsencode(base)).hexdigest()[:_HASH]


def _stem(base: str, limit: int) -> str:
    """``base``, or its start plus ``~<hash>`` so that a temporary name fits ``limit``."""
    room = limit - _FIXED
    if len(os.fsencode(base)) <= room:
        return base
    keep = base
    while keep and len(os.fsencode(keep)) > room - _HASH - 1:
        keep = keep[:-1]
    return f"{keep}~{_digest(base)}"


def temporary_name(filepath: str, reserve: int = 0) -> str:
    """A fresh temporary path beside ``filepath`` whose name fits the file system with
    ``reserve`` bytes to spare (for a suffix a caller adds)."""
    folder, base = os.path.split(os.path.abspath(filepath))
    stem = _stem(base, name_max(folder) - reserve)
    return os.path.join(folder, f".{stem}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")


def is_temporary_for(filepath: str, candidate: str) -> bool:
    """Whether ``candidate`` (a name in the target's folder) is one of our temporary files."""
    match = _TEMPORARY.fullmatch(candidate)
    if match is None:
        return False
    base, stem = os.path.basename(filepath), match["stem"]
    return stem == base or (stem.endswith("~" + _digest(base))
                            and base.startswith(stem[:-_HASH - 1]))


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError, ValueError):   # another user's process, or not a pid
        return True
    return True


def remove_dead_temporaries(folder: str) -> list[str]:
    """Remove the temporary files (``.<name>.<pid>.<hex>.tmp``, regular files only) that
    writers which no longer run left in ``folder``; returns their names. Folders are kept:
    one can hold the previous contents of a folder save that was killed between its two
    renames."""
    if os.name == "nt":              # os.kill(pid, 0) would terminate the process there
        return []
    removed = []
    with contextlib.suppress(OSError):
        for name in os.listdir(folder):
            match = _TEMPORARY.fullmatch(name)
            if match is None or _alive(int(match["pid"])):
                continue
            path = os.path.join(folder, name)
            with contextlib.suppress(OSError):
                if stat.S_ISREG(os.lstat(path).st_mode):
                    os.remove(path)
                    removed.append(name)
    return removed


_CAUSES = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is exhausted",
    errno.EFBIG: "the file is larger than the file system or the process's file size "
                 "limit (RLIMIT_FSIZE) allows",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied (the folder or the file is not writable)",
    errno.EPERM: "permission denied (the folder or the file is not writable)",
    errno.ENOTDIR: "a part of the path is a file, not a folder",
    errno.ENAMETOOLONG: "the name is too long for the file system",
    errno.EISDIR: "the path is a folder",
    errno.ENOENT: "the folder does not exist",
}


def write_error(filepath: str, what: str, exc: OSError) -> FileWriteError:
    """``exc`` (raised while writing a temporary file for ``filepath``) as a typed error that
    names ``filepath`` and the cause."""
    code = exc.errno
    detail = exc.strerror or str(exc)
    cause = _CAUSES.get(code)
    cause = f"{cause} ({detail})" if cause else detail
    return FileWriteError(f"{what}: cannot write '{filepath}': {cause}; the previous "
                          f"file there, if any, is unchanged", code, filepath)


def _translated(filepath: str, what: str, exc: BaseException) -> BaseException | None:
    if isinstance(exc, FileWriteError):
        return None if exc.filename == filepath else write_error(filepath, what, exc)
    if isinstance(exc, OSError) and not isinstance(exc, LaminaError):
        return write_error(filepath, what, exc)
    return None


def _check_target(filepath: str, what: str) -> str:
    """The target's folder, once it is known to be one and the name to fit in it."""
    folder = os.path.dirname(os.path.abspath(filepath))
    if not os.path.isdir(folder):
        if os.path.lexists(folder) or any(
                os.path.isfile(parent) for parent in _parents(folder)):
            raise write_error(filepath, what, OSError(errno.ENOTDIR,
                                                      os.strerror(errno.ENOTDIR)))
        raise SavedFileNotFoundError(f"{what}: cannot write '{filepath}': the folder "
                                     f"'{folder}' does not exist")
    limit = name_max(folder)
    size = len(os.fsencode(os.path.basename(os.path.abspath(filepath))))
    if size > limit:
        raise write_error(filepath, what, OSError(
            errno.ENAMETOOLONG, f"{size} bytes; this file system takes at most {limit}"))
    return folder


def _parents(folder: str) -> Iterator[str]:
    while True:
        parent = os.path.dirname(folder)
        if parent == folder:
            return
        yield parent
        folder = parent


@contextlib.contextmanager
def atomic_path(filepath: str, what: str = "save", reserve: int = 0) -> Iterator[str]:
    """Yield a temporary path to write; on success it replaces ``filepath`` atomically.
    ``reserve``: bytes of name kept free for a suffix the caller adds to the path."""
    folder = _check_target(filepath, what)
    remove_dead_temporaries(folder)
    temporary = temporary_name(filepath, reserve)
    try:
        # O_EXCL: never write through someone else's file; 0o666 lets the umask decide.
        os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    except OSError as exc:
        raise write_error(filepath, what, exc) from exc
    try:
        yield temporary
        _fsync(temporary)
        os.replace(temporary, filepath)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.remove(temporary)
        typed = _translated(filepath, what, exc)
        if typed is None:
            raise
        raise typed from exc
    _fsync_folder(folder)


@contextlib.contextmanager
def atomic_image(filepath: str, what: str = "save") -> Iterator[io.BytesIO]:
    """Yield an empty in-memory file to fill (``h5py.File(image, "w")``); when the block
    ends, its bytes replace ``filepath`` through :func:`atomic_path`. The temporary file is
    claimed first, so a path that cannot be written fails before the work is done."""
    with atomic_path(filepath, what) as temporary:
        image = io.BytesIO()
        yield image
        write_bytes(temporary, image)


def write_bytes(path: str, image: io.BytesIO) -> None:
    """Write ``image``'s contents to ``path`` with Python I/O (errors are OSErrors)."""
    with image.getbuffer() as view, open(path, "wb") as f:
        f.write(view)


@contextlib.contextmanager
def atomic_folder(path: str, what: str = "save") -> Iterator[str]:
    """Yield a temporary folder to fill; on success it takes the place of ``path``.

    A folder cannot be swapped in one step: the old one is moved aside, the new one moved in,
    then the old one removed, so a crash between the two moves leaves the previous contents
    in a ``.<name>.<pid>.<random>.tmp`` folder beside ``path``.
    """
    parent = _check_target(path, what)
    remove_dead_temporaries(parent)
    temporary, old = temporary_name(path), None
    try:
        os.mkdir(temporary)
    except OSError as exc:
        raise write_error(path, what, exc) from exc
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
    except BaseException as exc:
        if old is not None and not os.path.lexists(path):
            os.replace(old, path)          # put the previous folder back
            old = None
        shutil.rmtree(temporary, ignore_errors=True)
        typed = _translated(path, what, exc)
        if typed is None:
            raise
        raise typed from exc
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
