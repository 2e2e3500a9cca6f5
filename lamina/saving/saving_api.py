"""``save_model`` / ``load_model`` / ``save_weights`` / ``load_weights``: Keras 3's entry
points, dispatching on the file name as Keras 3 does (``.keras`` for whole models,
``.weights.h5`` for weights, ``.h5`` / ``.hdf5`` for Keras's legacy HDF5 files, see
:mod:`.legacy_h5`). Every file is written atomically (see :mod:`.atomic`)."""
from __future__ import annotations

import json
import os
import warnings
import zipfile

from ..errors import ArgumentTypeError
from ..traceback_filter import filter_traceback
from ..registry import safe_mode_scope
from .. import settings
from ..core.saveable import is_a
from . import archive_guard
from .atomic import atomic_image
from .errors import (CorruptFileError, FileFormatError, SavedFileExistsError,
                     SavedFileNotFoundError, SavingError)
from ..registry.lookup import deserialize_in_family
from .keras_archive import write_archive, write_archive_to_file
from .file_objects import is_file_object, spooled_archive
from .legacy_h5 import save_legacy_model
from .keras_archive import read_archive
from .legacy_h5 import load_legacy_model
from .weights_h5 import write_weights
from .keras_archive import load_weights_from_archive
from .weights_h5 import assign_weights, read_weights
from .legacy_h5 import load_legacy_weights
from .sharded_weights import INDEX_SUFFIX, load_sharded, write_sharded
from .compile_config import apply_compile_config

_LEGACY = (".h5", ".hdf5")


def _path(filepath, what: str) -> str:
    try:
        return os.fspath(filepath)
    except TypeError:
        raise TypeError(f"{what}: argument 'filepath' must be a str or os.PathLike; received "
                        f"{filepath!r} of type {type(filepath).__name__}") from None


def _check_flag(what: str, name: str, value) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"{what}: argument '{name}' must be True or False; received {value!r}")


def _check_overwrite(filepath: str, overwrite: bool, what: str) -> None:
    _check_flag(what, "overwrite", overwrite)
    if not overwrite and os.path.lexists(filepath):
        raise SavedFileExistsError(f"{what}: '{filepath}' already exists and overwrite=False;"
                                   f" pass overwrite=True to replace it")


def _check_exists(filepath: str, what: str) -> None:
    if not os.path.exists(filepath):
        hint = (". Please ensure the file is an accessible `.keras` zip file"
                if filepath.endswith(".keras") else "")
        raise SavedFileNotFoundError(f"{what}: File not found: no file or folder at "
                                     f"'{filepath}'{hint}")


def _check_model(model, what: str) -> None:
    if not is_a(model, "Model"):
        raise TypeError(f"{what}: argument 'model' must be a lamina Model; received "
                        f"{type(model).__name__}")


@filter_traceback
def save_model(model, filepath, overwrite: bool = True, zipped: bool | None = None,
               **kwargs) -> None:
    """Save a whole model to a file.

    The architecture, weights, compile arguments and optimizer state go to a ``.keras``
    file (with ``zipped=False``, to a folder of the same three files), or to a ``.h5`` /
    ``.hdf5`` file in Keras's legacy HDF5 layout. The same as ``model.save(filepath)``.

    Args:
        model: The Lamina ``Model`` to save.
        filepath: The path; its extension chooses the format (``.keras``, ``.h5`` or
            ``.hdf5``). With ``zipped=False`` it names a folder and must not end in
            ``.keras``. An open binary file (``io.BytesIO``) gets the ``.keras`` zip.
        overwrite: If ``True`` (default), replace an existing file; if ``False``, an
            existing file raises ``SavedFileExistsError``.
        zipped: ``True`` (default, also for ``None``) for a zip file, ``False`` for a
            folder.
        **kwargs: ``include_optimizer`` (default ``True``) and the deprecated
            ``save_format`` (with a warning); anything else raises an error.

    Raises:
        FileFormatError: If the extension is not one of the formats above.

    Example:

    >>> lamina.saving.save_model(model, "model.keras")
    """
    if is_file_object(filepath, "write"):
        _save_to_file_object(model, filepath, zipped, kwargs)
        return
    filepath = _path(filepath, "save_model")
    _check_model(model, "save_model")
    include_optimizer = kwargs.pop("include_optimizer", True)
    save_format = kwargs.pop("save_format", None)
    known = filepath.endswith(_LEGACY + (".keras",))
    if save_format and not known:
        raise FileFormatError(f"save_model: The `save_format` argument is deprecated in "
                              f"Keras 3; remove it and pass a filepath ending in '.keras' "
                              f"(or '.h5' for the legacy HDF5 format). Received: filepath="
                              f"{filepath!r}, save_format={save_format!r}")
    if kwargs:
        raise ArgumentTypeError(f"save_model: The following argument(s) are not supported: "
                                f"{sorted(kwargs)}")
    _check_flag("save_model", "include_optimizer", include_optimizer)
    zipped = True if zipped is None else zipped
    _check_flag("save_model", "zipped", zipped)
    if save_format:
        warnings.warn(f"save_model: argument 'save_format' is deprecated in Keras 3 and "
                      f"ignored; the format comes from the extension (received "
                      f"save_format={save_format!r})", stacklevel=2)
    if not zipped:
        if filepath.endswith(".keras"):
            raise FileFormatError(f"save_model: with zipped=False the model is written to a "
                                  f"folder, so the `filepath` argument should not end in "
                                  f"`.keras`. Received: filepath={filepath!r}")
        _check_overwrite(filepath, overwrite, "save_model")
        write_archive(model, filepath, zipped=False, include_optimizer=include_optimizer)
        return
    if filepath.endswith(_LEGACY):
        _check_overwrite(filepath, overwrite, "save_model")
        save_legacy_model(model, filepath, include_optimizer=include_optimizer)
        return
    if not filepath.endswith(".keras"):
        raise FileFormatError(f"save_model: Invalid filepath extension for saving; it must end"
                              f" in '.keras' (Keras 3's format) or '.h5' / '.hdf5' (the "
                              f"legacy HDF5 format), or pass zipped=False to write a folder. "
                              f"Received: filepath={filepath!r}")
    _check_overwrite(filepath, overwrite, "save_model")
    write_archive(model, filepath, zipped=True, include_optimizer=include_optimizer)


def _save_to_file_object(model, fileobj, zipped, kwargs: dict) -> None:
    """``save_model`` into an open binary file: the ``.keras`` zip's bytes, as Keras 3."""
    _check_model(model, "save_model")
    include_optimizer = kwargs.pop("include_optimizer", True)
    if kwargs:
        raise ArgumentTypeError(f"save_model: The following argument(s) are not supported "
                                f"when saving to a file object: {sorted(kwargs)}")
    _check_flag("save_model", "include_optimizer", include_optimizer)
    if zipped is False:
        raise FileFormatError("save_model: zipped=False writes a folder, which needs a path; "
                              f"received a file object of type {type(fileobj).__name__}")
    write_archive_to_file(model, fileobj, include_optimizer=include_optimizer)


@filter_traceback
def load_model(filepath, custom_objects: dict | None = None, compile: bool = True,
               safe_mode: bool = True):
    """Load a model saved with ``model.save`` / ``save_model``.

    Reads a ``.keras`` file, a folder written with ``zipped=False``, or a legacy
    ``.h5`` / ``.hdf5`` file; the model is compiled when the file says how.

    Classes come only from Lamina's registry, ``custom_objects`` and
    ``register_keras_serializable``; no code stored in the file is ever run, whatever
    ``safe_mode`` says.

    Args:
        filepath: Path of the file or folder (a string or ``os.PathLike``), or an open
            binary file holding a ``.keras`` zip (``io.BytesIO``).
        custom_objects: A dict of name -> class or function for the user's own classes
            and functions the model uses.
        compile: If ``True`` (default), compile the model with the saved optimizer, loss
            and metrics, and restore the optimizer's state.
        safe_mode: If ``True`` (default), a ``Lambda`` layer whose function was a Python
            lambda is refused; with ``False`` it takes the function passed in
            ``custom_objects`` under the layer's name (the stored bytecode is never
            unmarshalled). ``lamina.config.enable_unsafe_deserialization()`` sets it to
            ``False``.

    Returns:
        The model.

    Raises:
        FileFormatError: If the path's extension is not a model format.
        CorruptFileError: If the file is not a readable model file.

    Example:

    >>> model.save("model.keras")
    >>> restored = lamina.saving.load_model("model.keras")
    """
    if is_file_object(filepath, "read"):
        with spooled_archive(filepath) as path:
            return load_model(path, custom_objects=custom_objects, compile=compile,
                              safe_mode=safe_mode)
    filepath = _path(filepath, "load_model")
    if custom_objects is not None and not isinstance(custom_objects, dict):
        raise TypeError(f"load_model: argument 'custom_objects' must be a dict of name -> "
                        f"class or function; received {type(custom_objects).__name__}")
    _check_flag("load_model", "compile", compile)
    _check_flag("load_model", "safe_mode", safe_mode)
    if settings.unsafe_deserialization_enabled():
        safe_mode = False
    if not filepath.endswith(_LEGACY + (".keras",)) and not os.path.isdir(filepath):
        raise FileFormatError(f"load_model: File format not supported: filepath={filepath!r};"
                              f" Keras 3 model files end in '.keras' (or '.h5' / '.hdf5' "
                              f"for the legacy HDF5 format)")
    _check_exists(filepath, "load_model")
    if filepath.endswith(_LEGACY):
        with safe_mode_scope(safe_mode):
            return load_legacy_model(filepath, custom_objects=custom_objects, compile=compile)
    is_folder = os.path.isdir(filepath)
    if is_folder and not os.path.isfile(os.path.join(filepath, "config.json")):
        raise FileFormatError(f"load_model: '{filepath}' is a folder without config.json: "
                              f"not a Keras 3 model. TensorFlow SavedModel folders are not "
                              f"supported")
    if not is_folder and not zipfile.is_zipfile(filepath):
        raise CorruptFileError(f"load_model: '{filepath}' is not a .keras model: it is not a "
                               f"zip file ({os.path.getsize(filepath)} bytes; empty, "
                               f"truncated or of another format)")
    with safe_mode_scope(safe_mode):
        return read_archive(filepath, custom_objects=custom_objects, compile=compile)


@filter_traceback
def save_weights(model, filepath, overwrite: bool = True, max_shard_size=None,
                 **kwargs) -> None:
    """Save a model's weights to a ``.weights.h5`` file.

    The weights and the optimizer's state are written, matched later by the object
    structure. The same as ``model.save_weights(filepath)``.

    Args:
        model: The Lamina ``Model`` whose weights to save.
        filepath: The path; it must end in ``.weights.h5``.
        overwrite: If ``True`` (default), replace an existing file; if ``False``, an
            existing file raises ``SavedFileExistsError``.
        max_shard_size: ``None`` (default) for one ``.weights.h5`` file; a number of
            gigabytes to write shards of at most that size beside an index, whose
            ``filepath`` then ends in ``.weights.json`` (Keras 3's sharded weights).
        **kwargs: ``objects_to_skip`` (objects whose weights are left out), as in Keras;
            anything else raises ``TypeError``.

    Raises:
        FileFormatError: If ``filepath`` does not end in ``.weights.h5`` (or
            ``.weights.json`` with ``max_shard_size``).

    Example:

    >>> lamina.saving.save_weights(model, "model.weights.h5")
    """
    objects_to_skip = kwargs.pop("objects_to_skip", None) or ()
    if kwargs:
        raise TypeError(f"save_weights: unexpected keyword arguments {sorted(kwargs)}; the "
                        f"only extra one is objects_to_skip")
    filepath = _path(filepath, "save_weights")
    _check_model(model, "save_weights")
    if max_shard_size is not None:
        _save_sharded(model, filepath, overwrite, max_shard_size, objects_to_skip)
        return
    if not filepath.endswith(".weights.h5"):
        legacy = (" Like Keras 3, Lamina reads legacy .h5 weight files (load_weights) but "
                  "does not write them; model.save('model.h5') writes a whole model in the "
                  "legacy format." if filepath.endswith(_LEGACY) else "")
        raise FileFormatError(f"save_weights: the filename must end in `.weights.h5`. "
                              f"Received: filepath={filepath!r}.{legacy}")
    _check_overwrite(filepath, overwrite, "save_weights")
    with atomic_image(filepath, "save_weights") as image:
        write_weights(model, image, objects_to_skip=list(objects_to_skip))


def _save_sharded(model, filepath: str, overwrite: bool, max_shard_size,
                  objects_to_skip) -> None:
    if isinstance(max_shard_size, bool) or not isinstance(max_shard_size, (int, float)) or \
            not max_shard_size > 0:
        raise ArgumentTypeError(f"save_weights: argument 'max_shard_size' must be a positive "
                                f"number of gigabytes; received {max_shard_size!r}")
    if filepath.endswith(".weights.h5"):             # Keras 3 renames it, with a warning
        renamed = filepath[:-len(".h5")] + ".json"
        warnings.warn(f"save_weights: saving sharded weights requires `*.json` as the "
                      f"extension; the original path {filepath!r} is renamed to "
                      f"{renamed!r}", stacklevel=3)
        filepath = renamed
    if not filepath.endswith(INDEX_SUFFIX):
        raise FileFormatError(f"save_weights: The filename must end in `{INDEX_SUFFIX}` "
                              f"when `max_shard_size` is specified (the index, beside the "
                              f"shards). Received: filepath={filepath!r}")
    _check_overwrite(filepath, overwrite, "save_weights")
    write_sharded(model, filepath, max_shard_size, objects_to_skip=list(objects_to_skip))


@filter_traceback
def load_weights(model, filepath, skip_mismatch: bool = False, **kwargs):
    """Load weights into a built model from a file.

    Weights saved by ``save_weights`` or ``save_model`` (from a ``.keras`` file) are
    matched by the object structure, not by layer names. Everything is read and checked
    before any weight changes.

    Args:
        model: A built Lamina ``Model``.
        filepath: A ``.weights.h5``, ``.keras``, or legacy ``.h5`` / ``.hdf5`` file. A
            legacy file (weights only, or a whole model) is matched layer by layer: in
            order (Keras's default) or, with ``by_name=True``, by layer name.
        skip_mismatch: If ``True``, weights whose shape does not fit are left as they
            are instead of raising.
        **kwargs: ``objects_to_skip`` (objects whose weights are left out, not for legacy
            files) and ``by_name`` (legacy files only); anything else raises
            ``TypeError``.

    Returns:
        For a legacy ``.h5`` file, a ``lamina.saving.legacy_weights.LoadReport`` of which
        layers were loaded and which were skipped and why; ``None`` for the other
        formats.

    Example:

    >>> model.save_weights("model.weights.h5")
    >>> lamina.saving.load_weights(model, "model.weights.h5")
    """
    filepath = _path(filepath, "load_weights")
    _check_model(model, "load_weights")
    _check_flag("load_weights", "skip_mismatch", skip_mismatch)
    legacy = filepath.endswith(_LEGACY) and not filepath.endswith(".weights.h5")
    by_name = kwargs.pop("by_name", False) if legacy else False
    objects_to_skip = kwargs.pop("objects_to_skip", None) or ()
    if objects_to_skip and legacy:
        raise TypeError("load_weights: 'objects_to_skip' is not supported for legacy .h5 "
                        "files; use by_name=True and skip_mismatch=True instead")
    if kwargs:
        raise TypeError(f"load_weights: unrecognized keyword argument(s) {sorted(kwargs)}"
                        + ("; 'by_name' exists only for legacy .h5 files" if "by_name" in
                           kwargs else ""))
    if not filepath.endswith(_LEGACY + (".keras", ".weights.json")):
        raise FileFormatError(f"load_weights: File format not supported: filepath="
                              f"{filepath!r}; Keras 3 weights files end in '.weights.h5' "
                              f"(or '.keras' for a whole model, '.h5' / '.hdf5' for legacy "
                              f"HDF5 files)")
    _check_exists(filepath, "load_weights")
    if not model.built:
        raise SavingError(f"load_weights: model '{model.name}' is not built, so it has no "
                          f"weights to load '{filepath}' into; call it on data or "
                          f"model.build(input_shape) first")
    if filepath.endswith(".keras"):
        load_weights_from_archive(model, filepath, skip_mismatch, objects_to_skip)
    elif filepath.endswith(".weights.h5"):
        assign_weights(read_weights(model, filepath, filepath, skip_mismatch,
                                    objects_to_skip))
    elif filepath.endswith(INDEX_SUFFIX):
        load_sharded(model, filepath, skip_mismatch, objects_to_skip)
    else:
        _check_flag("load_weights", "by_name", by_name)
        return load_legacy_weights(model, filepath, skip_mismatch=skip_mismatch,
                                   by_name=by_name)


def model_from_json(json_string: str, custom_objects: dict | None = None):
    """A new, unweighted model from ``model.to_json()`` (Keras's ``model_from_json``)."""
    try:
        config = archive_guard.loads(json_string, None,
                                     "model_from_json: argument 'json_string'")
    except (TypeError, json.JSONDecodeError) as exc:
        raise SavingError(f"model_from_json: argument 'json_string' is not valid JSON "
                          f"({exc})") from None
    if not isinstance(config, dict):
        raise SavingError(f"model_from_json: the JSON must be an object with 'class_name' "
                          f"and 'config'; received {str(config)[:80]!r}")
    compile_config = config.pop("compile_config", None)
    model = deserialize_in_family("keras.layers", "layer", config, custom_objects)
    if compile_config:
        apply_compile_config(model, compile_config, custom_objects)
    return model
