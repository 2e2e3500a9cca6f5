"""Keras's ``keras.utils.get_file``: a file from a URL, downloaded once into a cache folder
(``$KERAS_HOME`` or ``~/.keras``, then ``cache_subdir``), checked against a hash, optionally
extracted. Offline, a missing file is a ``DatasetUnavailableError`` that names the file and
the path to put it at.

The download lands in a temporary file renamed into place when complete
(``lamina.datasets.files.download``); archives are extracted only when every member stays
inside the extraction folder (no absolute paths, ``..`` or links).
"""
from __future__ import annotations

import hashlib
import os
import tarfile
import urllib.parse
import warnings
import zipfile

from ..datasets.files import DatasetUnavailableError, download


def _keras_home() -> str:
    return os.path.expanduser(os.environ.get("KERAS_HOME") or os.path.join("~", ".keras"))


def _hasher(algorithm: str, file_hash: str | None):
    if algorithm == "sha256" or (algorithm == "auto" and file_hash is not None
                                 and len(file_hash) == 64):
        return hashlib.sha256()
    if algorithm not in ("md5", "auto"):
        raise ValueError(f"get_file: argument 'hash_algorithm' must be 'auto', 'sha256' or "
                         f"'md5'; received {algorithm!r}")
    return hashlib.md5()


def _hash_matches(path: str, file_hash: str, algorithm: str) -> bool:
    hasher = _hasher(algorithm, file_hash)
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            hasher.update(block)
    return hasher.hexdigest() == str(file_hash)


def _targets(datadir: str, fname: str, named: bool, extract: bool) -> tuple[str, str | None]:
    """(download path, extraction folder) as Keras 3 lays them out."""
    if not extract:
        return os.path.join(datadir, fname), None
    if named and "." in fname:
        stem = fname[:fname.find(".")]
        return os.path.join(datadir, fname), os.path.join(datadir, f"{stem}_extracted")
    return os.path.join(datadir, f"{fname}_archive"), os.path.join(datadir, fname)


def _inside(folder: str, member: str) -> bool:
    target = os.path.realpath(os.path.join(folder, member))
    return target == os.path.realpath(folder) or target.startswith(
        os.path.realpath(folder) + os.sep)


def extract_archive(path: str, folder: str, archive_format="auto") -> bool:
    """Extract a tar or zip archive into ``folder``; False if it is neither. A member that
    would land outside ``folder`` (or a link) is refused with ``ValueError``."""
    if archive_format is None:
        return False
    formats = ["tar", "zip"] if archive_format == "auto" else (
        [archive_format] if isinstance(archive_format, str) else list(archive_format))
    for kind in formats:
        if kind == "tar" and tarfile.is_tarfile(path):
            with tarfile.open(path) as archive:
                members = archive.getmembers()
                bad = [m.name for m in members if m.issym() or m.islnk() or m.isdev()
                       or not _inside(folder, m.name)]
                if bad:
                    raise ValueError(f"get_file: refusing to extract {path!r}: member(s) "
                                     f"{bad[:3]} are links or would land outside {folder!r}")
                archive.extractall(folder, members=members)
            return True
        if kind == "zip" and zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                bad = [n for n in archive.namelist() if not _inside(folder, n)]
                if bad:
                    raise ValueError(f"get_file: refusing to extract {path!r}: member(s) "
                                     f"{bad[:3]} would land outside {folder!r}")
                archive.extractall(folder)
            return True
    return False


def get_file(fname=None, origin=None, untar=False, md5_hash=None, file_hash=None,
             cache_subdir="datasets", hash_algorithm="auto", extract=False,
             archive_format="auto", cache_dir=None, force_download=False) -> str:
    """The local path of the file at ``origin`` (downloaded into
    ``cache_dir/cache_subdir`` unless already there with the right hash); with
    ``extract=True`` (or ``untar=True``) the folder it was extracted into.

    Args:
        fname: the file's name in the cache (None: the last part of ``origin``).
        origin: the URL to download from.
        untar: bool; deprecated form of ``extract=True`` for tar files (default False).
        md5_hash: deprecated; an MD5 hash to check (use ``file_hash``).
        file_hash: the expected SHA-256 or MD5 hash of the file.
        cache_subdir: the sub-folder of ``cache_dir`` to save into (default
            ``"datasets"``).
        hash_algorithm: ``"auto"`` (from the hash's length, default), ``"sha256"`` or
            ``"md5"``.
        extract: bool; extract the archive (default False).
        archive_format: ``"auto"`` (default), ``"tar"``, ``"zip"``, a list of them, or
            None (no extraction).
        cache_dir: the cache folder (None: ``$KERAS_HOME`` or ``~/.keras``).
        force_download: bool; download again even when cached (default False).

    Returns:
        The local path of the file (or of the extracted folder).

    Raises:
        ValueError: a bad argument, or a downloaded file whose hash does not match.
    """
    if origin is None:
        raise ValueError('get_file: please specify the "origin" argument (URL of the file to '
                         'download)')
    if md5_hash is not None and file_hash is None:
        file_hash, hash_algorithm = md5_hash, "md5"
    _hasher(hash_algorithm, file_hash)                     # validate the name early
    base = os.path.expanduser(os.fspath(cache_dir)) if cache_dir is not None else _keras_home()
    if not os.access(base, os.W_OK) and os.path.exists(base):
        base = os.path.join("/tmp", ".keras")
    datadir = os.path.join(base, cache_subdir)
    os.makedirs(datadir, exist_ok=True)
    named = bool(fname)
    fname = os.fspath(fname) if fname else os.path.basename(urllib.parse.urlsplit(origin).path)
    if not fname:
        raise ValueError(f"get_file: cannot infer a file name from origin={origin!r}; please "
                         f"specify the `fname` argument")
    if os.sep in fname:
        raise ValueError(f"get_file: paths are not accepted as the `fname` argument; pass the "
                         f"file name and put the folder in `cache_dir`. Received: "
                         f"fname={fname!r}")
    target, folder = _targets(datadir, fname, named, bool(extract or untar))
    needed = force_download or not os.path.exists(target)
    if not needed and file_hash is not None and not _hash_matches(target, file_hash,
                                                                   hash_algorithm):
        warnings.warn(f"get_file: the local file {target!r} does not match the expected "
                      f"hash {file_hash}; downloading it again", stacklevel=2)
        needed = True
    if needed:
        try:
            download(origin, target)
        except Exception as exc:
            raise DatasetUnavailableError(
                f"get_file: {fname!r} is not in the cache and could not be downloaded from "
                f"{origin} ({type(exc).__name__}: {exc}). Download it yourself and put it at "
                f"{target!r} (or pass cache_dir= to use another folder)") from exc
        if file_hash is not None and not _hash_matches(target, file_hash, hash_algorithm):
            os.remove(target)
            raise ValueError(f"get_file: incomplete or corrupted file downloaded from "
                             f"{origin}: its hash does not match the provided value of "
                             f"{file_hash}; the file was removed")
    if folder is not None:
        if not extract_archive(target, folder, "tar" if untar else archive_format):
            warnings.warn(f"get_file: could not extract archive {target!r}", stacklevel=2)
        return folder
    return target
