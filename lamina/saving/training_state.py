"""What a resumed ``fit`` needs beyond the weights and the optimizer's state, kept inside
the backup's ``.weights.h5`` file (``BackupAndRestore``).

The state is a tree of dicts, lists, numbers, strings and numpy arrays: where training
stopped, the random generators' states (:mod:`.rng_state`), the metrics of a half-done
epoch and the callbacks' ``get_state()``. It is stored as one HDF5 group
``training_state``: an attribute ``state`` holds the tree as strict JSON, in which each array
is ``{"__array__": i}``, stored as the dataset ``training_state/arrays/i`` (bit for bit), and
each non-finite float is ``{"__float__": "inf"}``.

Why in the weights file: one file is replaced in one atomic rename, so a run killed while
backing up leaves the previous weights *and* their state, never the weights of one step with
the state of another. Keras reads only the model's groups and ignores this one.
"""
from __future__ import annotations

import io
import json
import math
import os

import numpy as np

from ..h5_guard import H5FileError, check_contained, create_checked, read_dataset
from .atomic import atomic_path, write_bytes
from .errors import CorruptFileError

GROUP = "training_state"
FORMAT_VERSION = 1
STAGED = ".weights.h5"          # the suffix of the staged weights of a backup


def encode(value, arrays: list, where: str = "state"):
    """``value`` as strict JSON; its arrays are appended to ``arrays``."""
    if isinstance(value, np.ndarray):
        arrays.append(value)
        return {"__array__": len(arrays) - 1}
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return {"__float__": repr(value)}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise TypeError(f"training state: '{where}' must have string keys; received "
                                f"the key {key!r}")
        return {key: encode(item, arrays, f"{where}/{key}") for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [encode(item, arrays, f"{where}/{i}") for i, item in enumerate(value)]
    raise TypeError(f"training state: '{where}' must be made of dicts, lists, numbers, "
                    f"strings and numpy arrays; received {type(value).__name__} {value!r}")


def decode(value, arrays, filepath: str = "<memory>"):
    """The inverse of :func:`encode` (lists stay lists)."""
    if isinstance(value, dict):
        if set(value) == {"__array__"}:
            return np.asarray(read_dataset(arrays[str(value["__array__"])], filepath))
        if set(value) == {"__float__"}:
            return float(value["__float__"])
        return {key: decode(item, arrays, filepath) for key, item in value.items()}
    if isinstance(value, list):
        return [decode(item, arrays, filepath) for item in value]
    return value


def write_state(filepath, state: dict) -> None:
    """Add ``state`` to the HDF5 file ``filepath`` (a path or a binary file object),
    replacing an earlier one."""
    import h5py
    arrays: list = []
    text = json.dumps({"format": FORMAT_VERSION, "state": encode(state, arrays)},
                      allow_nan=False)
    with h5py.File(filepath, "a") as f:
        if GROUP in f:
            del f[GROUP]
        group = f.create_group(GROUP)
        group.attrs["state"] = text
        stored = group.create_group("arrays")
        for i, array in enumerate(arrays):
            create_checked(stored, str(i), array)


def read_state(filepath: str) -> dict | None:
    """The state stored in ``filepath``, or None when it holds none (a Keras backup)."""
    import h5py
    try:
        with h5py.File(filepath, "r") as f:
            check_contained(f, filepath)
            if GROUP not in f:
                return None
            group = f[GROUP]
            record = json.loads(group.attrs["state"])
            if record.get("format") != FORMAT_VERSION:
                raise CorruptFileError(f"'{filepath}': training state of format "
                                       f"{record.get('format')!r}; this Lamina reads format "
                                       f"{FORMAT_VERSION}")
            return decode(record["state"], group["arrays"], filepath)
    except (CorruptFileError, H5FileError):
        raise
    except Exception as exc:
        raise CorruptFileError(f"cannot read the training state in '{filepath}': the file "
                               f"is truncated or not a Lamina backup ({type(exc).__name__}: "
                               f"{exc})") from None


def is_hdf5(filepath: str) -> bool:
    import h5py
    return os.path.exists(filepath) and h5py.is_hdf5(filepath)


def save_weights_with_state(model, filepath: str, state: dict) -> bool:
    """``model.save_weights(filepath)`` with ``state`` added, as one atomic replacement.

    Returns False (and writes the weights alone) when ``model.save_weights`` wrote a file
    that is not HDF5 (an overridden method), which cannot carry the state.
    """
    with atomic_path(filepath, "BackupAndRestore", reserve=len(STAGED)) as temporary:
        staged = temporary + STAGED                 # save_weights insists on the suffix
        try:
            model.save_weights(staged, overwrite=True)
            carried = is_hdf5(staged)
            if carried:
                # The state is added in memory: HDF5 never writes to the disk itself.
                with open(staged, "rb") as f:
                    image = io.BytesIO(f.read())
                write_state(image, state)
                write_bytes(temporary, image)
            else:
                os.replace(staged, temporary)
        finally:
            if os.path.exists(staged):
                os.remove(staged)
    return carried


def remove_leftovers(folder: str, basenames) -> None:
    """Remove the temporary files that saves of ``basenames`` killed midway left in
    ``folder`` (``.<name>.<pid>.<random>.tmp`` and what was staged from them)."""
    if not os.path.isdir(folder):
        return
    for filename in os.listdir(folder):
        if filename.startswith(".") and ".tmp" in filename and any(
                filename.lstrip(".").startswith(name + ".") for name in basenames):
            os.remove(os.path.join(folder, filename))


def stateful_callbacks(callbacks) -> list:
    """``[(key, callback)]`` for the callbacks with ``get_state``/``set_state``; the key is
    the class name, then ``<name>_1``, ``<name>_2`` for later ones of the same class."""
    found, seen = [], {}
    for callback in callbacks:
        if callable(getattr(callback, "get_state", None)) and \
                callable(getattr(callback, "set_state", None)):
            name = type(callback).__name__
            count = seen[name] = seen.get(name, -1) + 1
            found.append((f"{name}_{count}" if count else name, callback))
    return found


def restore_callback_states(callbacks, saved: dict, filepath: str) -> None:
    """``set_state`` each callback whose key is in ``saved`` (others start afresh)."""
    for key, callback in stateful_callbacks(callbacks):
        if key not in saved:
            continue                  # a callback the backed-up run did not have
        try:
            callback.set_state(saved[key])
        except (KeyError, TypeError, ValueError) as exc:
            raise CorruptFileError(f"'{filepath}': the saved state of the callback {key} "
                                   f"cannot be restored ({type(exc).__name__}: {exc})"
                                   ) from None


def _metrics(model) -> list:
    """The model's metric objects, compiled ones taken out of their container."""
    found = []
    for metric in getattr(model, "metrics", None) or []:
        inner = getattr(metric, "metrics", None)
        found.extend(inner if isinstance(inner, list) else [metric])
    return found


def metric_states(model) -> dict:
    """``{metric name: [state arrays]}``: the running values of a half-done epoch."""
    return {metric.name: [v.numpy() for v in metric.variables] for metric in _metrics(model)}


def restore_metric_states(model, saved: dict) -> list:
    """Assign the saved running values; returns the names of saved metrics this model
    cannot take them into yet (compiled metrics are built by the first training step)."""
    missing = []
    by_name = {metric.name: metric for metric in _metrics(model)}
    for name, values in saved.items():
        metric = by_name.get(name)
        variables = list(metric.variables) if metric is not None else []
        if len(variables) != len(values) or any(
                tuple(v.shape) != np.shape(a) for v, a in zip(variables, values)):
            missing.append(name)
            continue
        for variable, value in zip(variables, values):
            variable.assign(np.asarray(value, dtype=variable.dtype))
    return missing
