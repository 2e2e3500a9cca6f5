"""The Keras 3 ``.keras`` file: a ZIP (stored, not compressed) holding, in this order,
``metadata.json``, ``config.json`` (the model's config in Keras 3's schema, with its
``build_config`` and ``compile_config``) and ``model.weights.h5`` (see :mod:`.weights_h5`).
With ``zipped=False`` the same three files go in a folder.

Reading rebuilds the model from ``config.json`` through Lamina's registry and
``custom_objects`` only (the ``module`` named in the file is never imported), compiles it
from ``compile_config``, then loads every weight, the optimizer's state included.
"""
from __future__ import annotations

import contextlib
import datetime
import io
import json
import os
import warnings
import zipfile

import numpy as np

from ..core import weight_budget
from ..layers import initial_values
from ..errors import LaminaError
from .. import settings
from ..registry import serialize_keras_object
from . import archive_guard
from .archive_guard import check_names, entry_cap, read_folder_file, read_member, weights_cap
from .assets import MAX_ASSET_BYTES, collect_assets, restore_assets
from .atomic import atomic_folder, atomic_path
from .compile_config import apply_compile_config, get_compile_config
from .errors import CorruptFileError, SavingError, naming_file
from .weights_h5 import assign_weights, read_weights, write_weights
from ..registry.lookup import deserialize_in_family
from ..traceback_filter import user_stacklevel

METADATA, CONFIG, WEIGHTS = "metadata.json", "config.json", "model.weights.h5"
# The Keras release whose file format this writer follows (Keras ignores the value).
KERAS_FORMAT_VERSION = "3.15.1"


def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise SavingError(f"cannot write the model's config: {value!r} (a "
                      f"{type(value).__name__}) is not JSON-serializable; get_config() must "
                      f"return plain values (numbers, strings, lists, dicts)")


def model_config(model) -> dict:
    """The ``config.json`` content: the serialized model plus its compile_config."""
    config = serialize_keras_object(model)
    compile_config = get_compile_config(model)
    if compile_config is not None:
        config["compile_config"] = compile_config
    return config


def _entries(model, include_optimizer: bool) -> dict[str, bytes]:
    """All three files in memory, before anything touches the disk."""
    if not model.built:
        warnings.warn(f"{model.name}: saving a model that is not built yet; it has no "
                      f"weights to save. Call it on data or build(input_shape) first.",
                      stacklevel=user_stacklevel())
    metadata = {"keras_version": KERAS_FORMAT_VERSION, "lamina_version": settings.VERSION,
                "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S")}
    config = json.dumps(model_config(model), default=_json_default)
    weights = io.BytesIO()
    optimizer = getattr(model, "optimizer", None)
    skip = [optimizer] if optimizer is not None and not include_optimizer else []
    write_weights(model, weights, objects_to_skip=skip)
    return {METADATA: json.dumps(metadata).encode(), CONFIG: config.encode(),
            WEIGHTS: weights.getvalue(), **collect_assets(model)}


def write_archive(model, filepath: str, zipped: bool = True,
                  include_optimizer: bool = True) -> None:
    """Write ``model`` to ``filepath`` atomically: a ``.keras`` zip, or a folder."""
    entries = _entries(model, include_optimizer)
    if not zipped:
        with atomic_folder(filepath, "save_model") as folder:
            for name, data in entries.items():
                os.makedirs(os.path.dirname(os.path.join(folder, name)), exist_ok=True)
                with open(os.path.join(folder, name), "wb") as f:
                    f.write(data)
        return
    with atomic_path(filepath, "save_model") as temporary:
        _write_zip(temporary, entries)


def write_archive_to_file(model, fileobj, include_optimizer: bool = True) -> None:
    """Write ``model`` as a ``.keras`` zip into an open binary file (``io.BytesIO``);
    everything is made in memory first, so a failure writes nothing."""
    _write_zip(fileobj, _entries(model, include_optimizer))


def _write_zip(target, entries: dict[str, bytes]) -> None:
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_STORED) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)


def read_entry(filepath: str, name: str, cap: int | None = None) -> bytes:
    """One file of a ``.keras`` zip or folder, within ``cap`` bytes (by default the entry's
    cap in :mod:`.archive_guard`); a typed error if it is missing, damaged or too big."""
    cap = entry_cap(name) if cap is None else cap
    try:
        if os.path.isdir(filepath):
            path = os.path.join(filepath, name)
            if not os.path.isfile(path):
                raise KeyError(name)
            return read_folder_file(path, filepath, name, cap)
        with zipfile.ZipFile(filepath, "r") as zf:
            check_names(zf, filepath)
            if name == WEIGHTS and WEIGHTS not in zf.namelist() and \
                    "model.weights.npz" in zf.namelist():
                raise CorruptFileError(f"'{filepath}' stores its weights as "
                                       f"model.weights.npz, which Lamina does not read; save "
                                       f"it with Keras's default weights format (h5)")
            return read_member(zf, filepath, name, cap)   # reading it whole checks its CRC
    except SavingError:
        raise
    except KeyError:
        raise CorruptFileError(f"'{filepath}' is not a complete .keras model: it has no "
                               f"'{name}'") from None
    except Exception as exc:      # BadZipFile, EOFError, zlib.error, OSError, ...
        raise CorruptFileError(f"cannot read '{filepath}': it is not a readable .keras zip "
                               f"file ({type(exc).__name__}: {exc})") from None


# Weights a rebuilt model may create beyond what the file stores: variables that are not
# saved (random-generator state and the like) are small.
BUDGET_SLACK = 64 * 2 ** 20


def entry_size(filepath: str, name: str) -> int | None:
    """The uncompressed size of entry ``name`` of a ``.keras`` zip or folder, or None when
    it cannot be told (the read that follows reports why)."""
    try:
        if os.path.isdir(filepath):
            return os.path.getsize(os.path.join(filepath, name))
        with zipfile.ZipFile(filepath, "r") as zf:
            return zf.getinfo(name).file_size
    except (OSError, KeyError, zipfile.BadZipFile, ValueError):
        return None


def read_config(filepath: str) -> dict:
    try:
        config = archive_guard.loads(read_entry(filepath, CONFIG), filepath, CONFIG)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CorruptFileError(f"'{filepath}': config.json is not valid JSON ({exc})") \
            from None
    if not isinstance(config, dict) or not isinstance(config.get("class_name"), str):
        raise CorruptFileError(f"'{filepath}': config.json should be an object with a "
                               f"'class_name'; found {str(config)[:80]!r}")
    return config


def read_archive(filepath: str, custom_objects: dict | None = None,
                 compile: bool = True) -> object:
    """The model stored in a ``.keras`` zip or folder, compiled if asked and possible."""
    config = read_config(filepath)
    compile_config = config.pop("compile_config", None)
    stored = entry_size(filepath, WEIGHTS)
    budget = weight_budget.limited(stored + BUDGET_SLACK, f"'{filepath}' stores "
                                   f"{stored:,} bytes of weights ({WEIGHTS})") \
        if stored is not None else contextlib.nullcontext()
    with initial_values.deferred():     # the file's weights replace the initial values
        model = _rebuild(filepath, config, compile_config, budget, custom_objects, compile)
        weights = read_entry(filepath, WEIGHTS, cap=weights_cap(model))
        assign_weights(read_weights(model, io.BytesIO(weights), filepath))
    restore_assets(model, lambda prefix: _entries_under(filepath, prefix), filepath)
    return model


def _rebuild(filepath, config, compile_config, budget, custom_objects, compile):
    try:
        with budget:
            model = deserialize_in_family("keras.layers", "layer", config, custom_objects)
    except LaminaError as exc:
        raise naming_file(exc, filepath) from None
    except Exception as exc:
        raise SavingError(f"cannot rebuild the model saved in '{filepath}': "
                          f"{type(exc).__name__}: {exc}") from exc
    if compile and compile_config:
        try:
            apply_compile_config(model, compile_config, custom_objects)
        except LaminaError as exc:
            raise naming_file(exc, filepath) from None
    return model


def _entries_under(filepath: str, prefix: str) -> dict[str, bytes]:
    """``{path below prefix: bytes}`` of the archive's files under the folder ``prefix``."""
    if os.path.isdir(filepath):
        folder = os.path.join(filepath, prefix)
        names = []
        for root, _, files in os.walk(folder):
            relative = os.path.relpath(root, folder)
            names += [(n if relative == "." else os.path.join(relative, n)).replace(os.sep, "/")
                      for n in files if os.path.isfile(os.path.join(root, n))]
    else:
        with zipfile.ZipFile(filepath, "r") as zf:
            names = [n[len(prefix):] for n in zf.namelist()
                     if n.startswith(prefix) and not n.endswith("/")]
    return {n: read_entry(filepath, prefix + n, cap=MAX_ASSET_BYTES) for n in sorted(names)}


def load_weights_from_archive(model, filepath: str, skip_mismatch: bool = False,
                              objects_to_skip=()) -> None:
    weights = io.BytesIO(read_entry(filepath, WEIGHTS, cap=weights_cap(model)))
    assign_weights(read_weights(model, weights, filepath, skip_mismatch, objects_to_skip))
