"""Open binary files (``io.BytesIO``, ``open(path, "rb")``) in place of paths, as Keras 3's
``save_model`` / ``load_model`` take them: saving writes the ``.keras`` zip's bytes into the
file; loading copies the file's bytes, in chunks, to a private temporary ``.keras`` file
that the ordinary reader (with all of :mod:`.archive_guard`'s checks) then reads."""
from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from typing import Iterator

_CHUNK = 1 << 20


def is_file_object(filepath, method: str) -> bool:
    """An open file with ``method`` (``"read"`` or ``"write"``) rather than a path."""
    return not isinstance(filepath, (str, bytes, os.PathLike)) and \
        callable(getattr(filepath, method, None))


@contextlib.contextmanager
def spooled_archive(fileobj) -> Iterator[str]:
    """The path of a temporary ``.keras`` file holding what ``fileobj`` reads from its
    current position on; removed afterwards."""
    handle, path = tempfile.mkstemp(suffix=".keras", prefix="lamina-load-")
    try:
        with os.fdopen(handle, "wb") as out:
            shutil.copyfileobj(fileobj, out, _CHUNK)
        yield path
    finally:
        os.remove(path)
