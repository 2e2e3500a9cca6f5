"""Keras's legacy HDF5 files (``.h5`` / ``.hdf5``), written and read as Keras 2 and 3 do.

A full-model file has root attributes ``keras_version``, ``backend``, ``model_config``
(JSON) and, for a compiled model, ``training_config`` (JSON); a group ``model_weights``
with one group per layer (see :mod:`.legacy_weights`); and, when the optimizer has state,
a group ``optimizer_weights`` (see :mod:`.legacy_optimizer`). A weights-only file
(Keras 2's ``save_weights('w.h5')``) is the ``model_weights`` group at the root.

Reading accepts what every writer produced: ``str`` or ``bytes`` attributes, ``:0``
suffixes, names chunked into ``layer_names0``, ``layer_names1``, ..., and Keras 2 configs
(converted by :mod:`.legacy_config`). Everything is read and checked before anything is
assigned; a damaged file raises a typed error naming it, never an h5py traceback.
"""
from __future__ import annotations

import contextlib
import json
import logging
import os


from ..core import weight_budget
from ..errors import LaminaError
from ..h5_guard import check_contained, create_checked
from ..registry import serialize_keras_object
from . import archive_guard
from .atomic import atomic_image
from .errors import CorruptFileError, FileFormatError, SavingError, naming_file
from .keras_archive import BUDGET_SLACK
from .legacy_config import LegacyConfigError, convert_model_config, text
from .legacy_optimizer import plan_optimizer, write_optimizer
from .legacy_training_config import convert_training_config
from .legacy_weights import LoadReport, legacy_weights, plan_model, write_names
from ..registry.lookup import deserialize_in_family
from ..backend import get_backend
from .compile_config import get_compile_config
from .keras_archive import KERAS_FORMAT_VERSION, _json_default
from .compile_config import apply_compile_config

_log = logging.getLogger("lamina.saving")
_MODEL_GROUPS = frozenset({"model_weights", "optimizer_weights"})


def _h5py():
    import h5py
    return h5py


# ------------------------------------------------------------------------------ writing
def save_legacy_model(model, filepath: str, include_optimizer: bool = True) -> None:
    """Write ``model`` to ``filepath`` in Keras's legacy HDF5 layout, atomically."""
    model_config = serialize_keras_object(model)      # build_config builds a subclass
    compile_config = get_compile_config(model) if include_optimizer else None
    backend = get_backend().name
    with atomic_image(filepath, "save_model") as image:
        with _h5py().File(image, "w") as f:
            f.attrs["keras_version"] = KERAS_FORMAT_VERSION
            f.attrs["backend"] = backend
            f.attrs["model_config"] = json.dumps(model_config, default=_json_default)
            if compile_config is not None:
                optimizer = compile_config.pop("optimizer")
                if isinstance(optimizer, dict):
                    optimizer = {"class_name": optimizer.get("registered_name") or
                                 optimizer["class_name"], "config": optimizer["config"]}
                compile_config["optimizer_config"] = optimizer
                f.attrs["training_config"] = json.dumps(compile_config,
                                                        default=_json_default)
            group = f.create_group("model_weights")
            group.attrs["backend"] = backend
            group.attrs["keras_version"] = KERAS_FORMAT_VERSION
            write_layers(model, group)
            optimizer = getattr(model, "optimizer", None)
            if compile_config is not None and optimizer is not None and optimizer.variables:
                write_optimizer(optimizer, f.create_group("optimizer_weights"))


def write_layers(model, group) -> None:
    """One group per layer (created in name order, as Keras does) and the model's own."""
    write_names(group, "layer_names", [layer.name for layer in model.layers])
    for layer in sorted(model.layers, key=lambda layer: layer.name):
        _write_weights(group.create_group(layer.name), legacy_weights(layer))
    own = list(model._trainable_variables) + list(model._non_trainable_variables)
    _write_weights(group.create_group("top_level_model_weights"), own)


def _write_weights(group, variables: list) -> None:
    names, used = [], set()
    for variable in variables:
        name = str(getattr(variable, "path", None) or variable.name)
        base, count = name, 0
        while name in used:                        # two weights of one path: keep both
            count += 1
            name = f"{base}_{count}"
        used.add(name)
        names.append(name)
    write_names(group, "weight_names", names)
    for name, variable in zip(names, variables):
        create_checked(group, name, variable.numpy())


# ------------------------------------------------------------------------------ reading
@contextlib.contextmanager
def _open(filepath: str, what: str):
    """The open file; h5py's errors while reading it become :class:`CorruptFileError`."""
    h5py = _h5py()
    size = os.path.getsize(filepath)
    if size == 0:
        raise CorruptFileError(f"{what}: '{filepath}' is empty (0 bytes): not a Keras HDF5 "
                               f"file")
    if not h5py.is_hdf5(filepath):
        raise CorruptFileError(f"{what}: '{filepath}' is not an HDF5 file ({size} bytes; "
                               f"truncated, damaged or of another format)")
    try:
        f = h5py.File(filepath, "r")
    except Exception as exc:
        raise CorruptFileError(f"{what}: cannot open '{filepath}' as HDF5 (truncated or "
                               f"damaged: {type(exc).__name__}: {exc})") from None
    try:
        with f:
            check_contained(f, filepath)
            yield f
    except (LaminaError, TypeError):
        raise
    except Exception as exc:     # OSError, KeyError, ValueError, RuntimeError from h5py
        raise CorruptFileError(f"{what}: cannot read '{filepath}': the file is damaged or "
                               f"not a Keras HDF5 file ({type(exc).__name__}: {exc})"
                               ) from None


def _json_attribute(f, key: str, filepath: str) -> dict:
    try:
        value = archive_guard.loads(text(f.attrs[key]), filepath, f"the '{key}' attribute")
    except (UnicodeDecodeError, json.JSONDecodeError, TypeError) as exc:
        raise CorruptFileError(f"'{filepath}': the '{key}' attribute is not valid JSON "
                               f"({exc})") from None
    if not isinstance(value, dict):
        raise CorruptFileError(f"'{filepath}': the '{key}' attribute should be a JSON "
                               f"object; found {str(value)[:80]!r}")
    return value


def _weights_group(f, filepath: str, what: str):
    """The group holding ``layer_names``: the root of a weights file, or ``model_weights``."""
    for group in (f, f.get("model_weights")):
        if group is not None and any(k.startswith("layer_names") for k in group.attrs):
            return group
    hint = (" It looks like a Keras 3 weights file (groups 'layers/.../vars'): name it "
            "'*.weights.h5' to load it" if "layers" in f or "vars" in f else "")
    raise CorruptFileError(f"{what}: '{filepath}' is an HDF5 file but not a legacy Keras "
                           f"model or weights file: it has no 'layer_names' attribute (at "
                           f"its root or in 'model_weights').{hint}")


def load_legacy_model(filepath: str, custom_objects: dict | None = None,
                      compile: bool = True):
    """The model stored in a legacy ``.h5`` file, with its weights, and compiled with its
    optimizer state when ``compile`` and the file says how."""
    with _open(filepath, "load_model") as f:
        if "model_config" not in f.attrs:
            if any(k.startswith("layer_names") for k in f.attrs) or "model_weights" in f:
                raise FileFormatError(
                    f"load_model: '{filepath}' holds weights only (Keras's "
                    f"save_weights), no model config: build the model in code, then call "
                    f"model.load_weights('{filepath}')")
            raise CorruptFileError(f"load_model: '{filepath}' is an HDF5 file but not a "
                                   f"Keras model: it has no 'model_config' attribute")
        config = _json_attribute(f, "model_config", filepath)
        unknown = sorted(set(f) - _MODEL_GROUPS)
        if unknown:
            # A damaged name ("optimizer_weighds") would otherwise drop that part silently.
            raise CorruptFileError(f"load_model: '{filepath}' holds {unknown} at its root, "
                                   f"where a Keras model file has only "
                                   f"{sorted(_MODEL_GROUPS)}: the file is damaged or not a "
                                   f"Keras model file")
        stored = os.path.getsize(filepath)
        try:
            with weight_budget.limited(stored + BUDGET_SLACK,
                                       f"'{filepath}' is {stored:,} bytes in all"):
                model = deserialize_in_family("keras.layers", "layer",
                                              convert_model_config(config), custom_objects)
        except LaminaError as exc:
            raise naming_file(exc, filepath) from None
        except Exception as exc:        # a layer's own check: not a damaged file
            raise SavingError(f"cannot rebuild the model saved in '{filepath}': "
                              f"{type(exc).__name__}: {exc}") from exc
        plan, _ = plan_model(model, _weights_group(f, filepath, "load_model"), filepath)
        if compile and "training_config" in f.attrs:
            training = _json_attribute(f, "training_config", filepath)
            names = model._output_names_for_compile()
            try:
                compile_config = convert_training_config(training, names)
            except LegacyConfigError as exc:
                raise CorruptFileError(f"'{filepath}': {exc}") from None
            try:
                apply_compile_config(model, compile_config, custom_objects)
            except LaminaError as exc:
                hint = "" if "compile=False" in str(exc) else \
                    " (in the file's training_config; pass compile=False to load the " \
                    "model uncompiled)"
                raise naming_file(exc, filepath, hint) from None
            except (ValueError, TypeError, KeyError) as exc:
                raise SavingError(f"cannot compile the model saved in '{filepath}' from "
                                  f"its training_config ({type(exc).__name__}: {exc}); "
                                  f"pass compile=False to load it uncompiled") from exc
            if "optimizer_weights" in f and getattr(model, "optimizer", None) is not None:
                plan += plan_optimizer(model, f["optimizer_weights"], filepath)
    for variable, array in plan:
        variable.assign(array)
    return model


def load_legacy_weights(model, filepath: str, skip_mismatch: bool = False,
                        by_name: bool = False) -> LoadReport:
    """Load a legacy ``.h5`` file's layer weights into ``model``; returns (and logs) the
    report of which layers were loaded, skipped and why."""
    with _open(filepath, "load_weights") as f:
        group = _weights_group(f, filepath, "load_weights")
        plan, report = plan_model(model, group, filepath, by_name=by_name,
                                  skip_mismatch=skip_mismatch)
    for variable, array in plan:
        variable.assign(array)
    _log.info("%s", report)
    return report
