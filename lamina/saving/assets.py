"""Keras 3's ``assets/`` in a ``.keras`` file: an object with ``save_assets(dir_path)``
(the lookup layers: ``vocabulary.txt``) writes files into a folder that is stored as
``assets/<object path>/<file>``; on load, ``load_assets(dir_path)`` reads them back
(after the weights), with the object paths of :mod:`.object_graph`."""
from __future__ import annotations

import os
import tempfile

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
            for name in sorted(os.listdir(folder)):
                with open(os.path.join(folder, name), "rb") as f:
                    entries[f"{_asset_dir(saveable.path)}/{name}"] = f.read()
    return entries


def restore_assets(model, read_entries) -> None:
    """Hand each object with ``load_assets`` its files; ``read_entries(prefix)`` gives
    ``{file name: bytes}`` for the archive entries directly under ``prefix``."""
    for saveable in saveables(model):
        load = getattr(saveable.obj, "load_assets", None)
        if load is None:
            continue
        files = read_entries(_asset_dir(saveable.path) + "/")
        if not files:
            continue
        with tempfile.TemporaryDirectory() as folder:
            for name, data in files.items():
                with open(os.path.join(folder, name), "wb") as f:
                    f.write(data)
            load(folder)
