"""Keras 3's ``.weights.h5`` layout: one ``<path>/vars`` group per layer or optimizer
(see :mod:`.object_graph`), datasets ``"0"``, ``"1"``, ... in variable order, and an attribute
``name`` on each ``vars`` group. The same bytes are ``model.weights.h5`` in a ``.keras`` zip.
Each group holds what the object's ``save_own_variables(store)`` writes, and is read back
through its ``load_own_variables(store)`` when it overrides it (see :mod:`.own_variables`).

Loading is all or nothing: every array is read and checked against the model first (counts,
shapes, readable numbers); only then is anything assigned.
"""
from __future__ import annotations

import contextlib
import warnings

import numpy as np

from ..core.saveable import saving_kind
from ..errors import LaminaError, describe_shape
from ..backend.half_precision import bfloat16_dtype
from ..h5_guard import check_contained, read_dataset
from .errors import CorruptFileError, WeightMismatchError
from .object_graph import Saveable, saveables
from .own_variables import (HookLoad, ReadStore, WriteStore, run_hook_loads, save_own_state,
                            uses_plain_layout)
from ..traceback_filter import user_stacklevel

_NUMERIC_KINDS = "biuf"


def _h5py():
    try:
        import h5py
    except ImportError:                            # pragma: no cover - h5py is a requirement
        raise ImportError("saving and loading weights needs h5py: pip install h5py") from None
    return h5py


def write_weights(model, target, objects_to_skip=()) -> None:
    """Write ``model``'s variables (and its optimizer's) to ``target``, a path or a binary
    file object, in Keras 3's layout."""
    h5py = _h5py()
    # HDF5 1.10's object formats (every HDF5 since 2016 and Keras's h5py read them): a
    # dataset of one chunk needs no chunk B-tree, so a 3000-layer model's file is 9x
    # smaller and writes and opens in two thirds of the time
    with h5py.File(target, "w", libver=("v110", "v110")) as f:
        last_written: list = []
        for saveable in saveables(model, objects_to_skip):
            group = f.create_group(saveable.group)
            group.attrs["name"] = str(getattr(saveable.obj, "name", ""))
            owner = f"{type(saveable.obj).__name__} '{getattr(saveable.obj, 'name', '')}'"
            store = WriteStore(group, owner, last_written)
            save_own_state(saveable.obj, store, saveable.variables)


def read_weights(model, source, filepath: str, skip_mismatch: bool = False,
                 objects_to_skip=()) -> list:
    """Check ``source`` (a path or binary file object) against ``model`` and return the
    plan for :func:`assign_weights`: ``(variable, array)`` pairs, and a ``HookLoad`` for
    each object with its own ``load_own_variables``; nothing is assigned here."""
    h5py = _h5py()
    with _reading(filepath):
        f = h5py.File(source, "r")
    with f:
        with _reading(filepath):
            index = check_contained(f, filepath)
            group = index.get("optimizer/vars")
            saved_optimizer = len(group) if isinstance(group, h5py.Group) else 0
        _prepare_optimizer(model, saved_optimizer)
        plan = []
        for saveable in saveables(model, objects_to_skip):
            with _reading(filepath):
                plan.extend(_plan_with_aliases(saveable, index, filepath, skip_mismatch))
        return plan


def _plan_with_aliases(saveable: Saveable, index, filepath: str, skip_mismatch: bool) -> list:
    """The plan for ``saveable`` at its first path or, when nothing in the file fits there,
    at the first of its other paths that fits (Keras 3 tries each path that reaches an
    object: an attribute renamed behind a property still loads)."""
    try:
        plan = _plan_one(saveable, index, filepath, skip_mismatch=False)
        # an object's own load_own_variables runs later: it keeps the caller's skip_mismatch
        return [step._replace(skip_mismatch=skip_mismatch) if isinstance(step, HookLoad)
                else step for step in plan]
    except (WeightMismatchError, CorruptFileError) as error:
        failed = error
        stored = _group(index, saveable) is not None
        for alias in saveable.aliases:
            other = Saveable(alias, saveable.obj)
            try:
                return _plan_one(other, index, filepath, False)
            except (WeightMismatchError, CorruptFileError) as alias_error:
                if not stored and _group(index, other) is not None:
                    failed, stored, saveable = alias_error, True, other   # says more
        if not skip_mismatch or not isinstance(failed, WeightMismatchError):
            raise failed from None
    return _plan_one(saveable, index, filepath, skip_mismatch)


def assign_weights(plan: list) -> None:
    """Carry out a plan of :func:`read_weights`: the objects' own ``load_own_variables``
    first (undone if one fails), then the checked ``(variable, array)`` pairs."""
    run_hook_loads([step for step in plan if isinstance(step, HookLoad)])
    for step in plan:
        if not isinstance(step, HookLoad):
            variable, array = step
            variable.assign(array)


@contextlib.contextmanager
def _reading(filepath: str):
    """h5py's errors (OSError, KeyError, ValueError, ...) become one typed error."""
    try:
        yield
    except LaminaError:                 # already names the file (and the dataset)
        raise
    except Exception as exc:
        raise CorruptFileError(f"cannot read weights from '{filepath}': the file is not a "
                               f"readable HDF5 weights file ({type(exc).__name__}: {exc})"
                               ) from None


def _prepare_optimizer(model, saved_variables: int) -> None:
    """Build a compiled model's optimizer before loading saved optimizer state into it, so
    that training resumes where it stopped (Keras skips the state with a warning)."""
    optimizer = getattr(model, "optimizer", None)
    if optimizer is None or getattr(optimizer, "built", True) or not model.built:
        return
    if saved_variables > len(optimizer.variables):
        optimizer.build(model.trainable_weights)


def _group(index, saveable: Saveable):
    group = index.get(saveable.group)
    if group is None and saveable.path and index.get("_layer_checkpoint_dependencies"):
        # tf.keras 2.13 wrote `_layer_checkpoint_dependencies` where Keras 3 writes `layers`.
        group = index.get(saveable.group.replace("layers", "_layer_checkpoint_dependencies", 1))
    return group


def _stored_arrays(group, saveable: Saveable, filepath: str, index,
                   numbered: bool = True) -> list:
    """The datasets of ``group`` (checked to hold numbers), ``"0"``, ``"1"``, ... in order;
    with ``numbered=False`` any names, in the file's order (for a ``load_own_variables``)."""
    if group is None:
        return []
    h5py = _h5py()
    if not isinstance(group, h5py.Group):
        raise CorruptFileError(f"'{filepath}': '{saveable.group}' should be a group of "
                               f"datasets '0', '1', ...; found a {type(group).__name__}")
    children = index.children(group)
    if numbered:
        children = sorted(children, key=lambda kv: (len(kv[0]), kv[0]))
        keys = [key for key, _ in children]
        if keys != [str(i) for i in range(len(keys))]:
            raise CorruptFileError(f"'{filepath}': group '{saveable.group}' should hold "
                                   f"datasets named '0', '1', ...; found {keys}")
    arrays = []
    for key, dataset in children:
        if not isinstance(dataset, h5py.Dataset):
            raise CorruptFileError(f"'{filepath}': '{saveable.group}/{key}' should be a "
                                   f"dataset; found a {type(dataset).__name__}")
        if _is_bfloat16(dataset):
            if dataset.dtype.itemsize != 2:
                raise CorruptFileError(f"'{filepath}': '{saveable.group}/{key}' is marked "
                                       f"bfloat16 but holds {dataset.dtype.itemsize}-byte "
                                       f"values; expected 2")
            bfloat16_dtype()            # ml_dtypes must be installed to read it
        elif dataset.dtype.kind not in _NUMERIC_KINDS:
            raise CorruptFileError(f"'{filepath}': '{saveable.group}/{key}' holds "
                                   f"{dataset.dtype} values; expected numbers")
        arrays.append(dataset)
    return arrays


def _is_bfloat16(dataset) -> bool:
    # ``in`` first: h5py's ``attrs.get`` of a missing name raises and catches a KeyError,
    # five times slower, and a model has thousands of datasets without the attribute
    attrs = dataset.attrs
    return "dtype" in attrs and attrs["dtype"] in ("bfloat16", b"bfloat16")


def _describe(saveable: Saveable) -> str:
    what = "optimizer" if saving_kind(saveable.obj) == "Optimizer" else "layer"
    return f"{what} '{saveable.obj.name}' (stored at '{saveable.group}')"


def _read_array(dataset, filepath: str):
    array = np.asarray(read_dataset(dataset, filepath))
    if _is_bfloat16(dataset):           # Keras writes bfloat16 as opaque 2-byte values
        array = array.view(bfloat16_dtype())
    return array


def _hook_step(saveable: Saveable, group, filepath: str, skip_mismatch: bool,
               index) -> HookLoad:
    """The object's whole group, read and checked, for its own ``load_own_variables``."""
    datasets = _stored_arrays(group, saveable, filepath, index, numbered=False)
    arrays = {dataset.name.rpartition("/")[2]: _read_array(dataset, filepath)
              for dataset in datasets}
    return HookLoad(saveable.obj, ReadStore(arrays, saveable.group), _describe(saveable),
                    filepath, skip_mismatch)


def _plan_one(saveable: Saveable, index, filepath: str, skip_mismatch: bool) -> list:
    group = _group(index, saveable)
    if not uses_plain_layout(saveable.obj):
        return [_hook_step(saveable, group, filepath, skip_mismatch, index)]
    variables = saveable.variables
    if group is None and saving_kind(saveable.obj) == "Optimizer":
        return []                       # saved without optimizer state: nothing to skip
    stored = _stored_arrays(group, saveable, filepath, index)
    if len(stored) != len(variables):
        if saving_kind(saveable.obj) == "Optimizer":
            warnings.warn(f"Skipping variable loading for optimizer '{saveable.obj.name}', "
                          f"because it has {len(variables)} variables whereas the saved "
                          f"optimizer in '{filepath}' has {len(stored)} variables",
                          stacklevel=user_stacklevel())
            return []
        names = [v.name for v in variables]
        hint = (" (the layer was never built: build the model, e.g. by calling it on data, "
                "before loading weights)" if not variables and not saveable.obj.built else "")
        return _mismatch(skip_mismatch, f"cannot load '{filepath}': {_describe(saveable)} "
                         f"has {len(variables)} weights {names}{hint}; the file has "
                         f"{len(stored)} there (received {len(stored)} variables)")
    plan = []
    for i, (variable, dataset) in enumerate(zip(variables, stored)):
        if tuple(dataset.shape) != tuple(variable.shape):
            return _mismatch(skip_mismatch, f"cannot load '{filepath}': {_describe(saveable)},"
                             f" weight {i} '{variable.name}': expected shape "
                             f"{describe_shape(variable.shape)}, found "
                             f"{describe_shape(dataset.shape)} in the file (the shapes "
                             f"must match)")
        array = _read_array(dataset, filepath)
        if array.dtype != np.dtype(variable.dtype):
            array = array.astype(variable.dtype)
        plan.append((variable, array))
    return plan


def _mismatch(skip_mismatch: bool, message: str) -> list:
    if not skip_mismatch:
        raise WeightMismatchError(message)
    warnings.warn(f"{message}; skipped (skip_mismatch=True)", stacklevel=user_stacklevel())
    return []
