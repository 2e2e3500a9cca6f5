"""Keras 3's ``assets/`` in a ``.keras`` file: an object with ``save_assets(dir_path)``
(the lookup layers: ``vocabulary.txt``) writes files, in sub-folders too, into a folder that
is stored as ``assets/<object path>/<file>``; on load, ``load_assets(dir_path)`` gets a
folder holding them again (after the weights), with the object paths of
:mod:`.object_graph`. As in Keras, that folder also holds the folders of the objects below
it (a model's holds its layers'); an object that saved nothing is not called."""
from __future__ import annotations

import os
import tempfile

from ..errors import AssetError
from .errors import CorruptFileError
from .object_graph import saveables

ASSETS = "assets"
MAX_ASSET_BYTES = 256 * 1024 * 1024


def _asset_dir(path: str) -> str:
    return f"{ASSETS}/{path}" if path else ASSETS


def collect_assets(model) -> dict[str, bytes]:
    """Every asset file the model's objects write, by archive entry name."""
    entries: dict[str, bytes] = {}
    for saveable in saveables(model):
        save = getattr(saveable.obj, "save_assets", None)
        if save is None:
            continue
        with tempfile.TemporaryDirectory() as folder:
            save(folder)
            for name in _files_under(folder):
                with open(os.path.join(folder, name), "rb") as f:
                    entries[f"{_asset_dir(saveable.path)}/{name}"] = f.read()
    return entries


def _files_under(folder: str) -> list[str]:
    """The files in ``folder`` and its sub-folders, as sorted '/'-separated paths."""
    names = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        relative = os.path.relpath(root, folder)
        for name in sorted(files):
            path = name if relative == "." else os.path.join(relative, name)
            names.append(path.replace(os.sep, "/"))
    return names


def restore_assets(model, read_entries, filepath: str) -> None:
    """Hand each object with ``load_assets`` its files (every such object, as Keras does,
    with an empty folder when it saved none); ``read_entries(prefix)`` gives
    ``{relative path: bytes}`` for the archive entries under ``prefix``. An asset the
    object finds missing or malformed is an error naming ``filepath`` and the entry."""
    for saveable in saveables(model):
        load = getattr(saveable.obj, "load_assets", None)
        if load is None:
            continue
        prefix = _asset_dir(saveable.path) + "/"
        files = read_entries(prefix)
        with tempfile.TemporaryDirectory() as folder:
            for name, data in files.items():
                path = os.path.join(folder, *name.split("/"))
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as f:
                    f.write(data)
            try:
                load(folder)
            except AssetError as exc:
                raise CorruptFileError(f"'{filepath}': entry '{prefix}{exc.entry}' (an asset "
                                       f"of '{saveable.path or 'the model'}'): "
                                       f"{exc.reason}") from None
