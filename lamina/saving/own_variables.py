"""Keras 3's per-object saving hooks: ``save_own_variables(store)`` and
``load_own_variables(store)``.

The weights writer hands every layer and optimizer a :class:`WriteStore` over its ``vars``
group; what the object puts in it (by default its own weights as ``"0"``, ``"1"``, ...) is
what the file holds. On loading, an object whose hooks are its base class's (or declare, with
a ``plain_layout_if(obj)`` attribute on the function, that they behave as the base's now) is
read by the checked plan of :mod:`.weights_h5`; any other gets its group as a
:class:`ReadStore` and its own ``load_own_variables`` is called. Those calls run before any
plain assignment, each on a snapshot of the object's variables, so a hook that raises leaves
the model as it was (all or nothing, as the rest of loading).
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping, MutableMapping
from typing import NamedTuple

import numpy as np

from ..backend.half_precision import bfloat16_dtype
from ..core.saveable import base_class, saving_kind
from ..errors import LaminaError
from ..h5_guard import create_checked
from .errors import SavingError, naming_file
from ..traceback_filter import user_stacklevel

_NUMERIC_KINDS = "biuf"


def _base_hook(obj, name: str):
    base = base_class("Optimizer" if saving_kind(obj) == "Optimizer" else "Layer")
    return getattr(base, name, None) if base is not None else None


def uses_plain_layout(obj) -> bool:
    """Whether ``obj`` loads the plain way: its own variables from ``"0"``, ``"1"``, ...
    (its ``load_own_variables`` is the base class's, or says so for its current state)."""
    hook = getattr(type(obj), "load_own_variables", None)
    if hook is None or hook is _base_hook(obj, "load_own_variables"):
        return True
    plain_if = getattr(hook, "plain_layout_if", None)
    return plain_if is not None and bool(plain_if(obj))


def save_own_state(obj, store, own_variables) -> None:
    """``obj.save_own_variables(store)``, or its own variables for an object without it."""
    hook = getattr(obj, "save_own_variables", None)
    if hook is not None:
        hook(store)
        return
    for i, variable in enumerate(own_variables):
        store[str(i)] = variable


def as_array(value, where: str) -> np.ndarray:
    """A stored value (a Variable, a tensor, an array, a number) as a host numpy array."""
    array = value.numpy() if hasattr(value, "numpy") else np.asarray(value)
    array = np.asarray(array)
    if array.dtype.kind not in _NUMERIC_KINDS and array.dtype.name != "bfloat16":
        raise SavingError(f"{where}: a weights file stores numbers only; received an array "
                          f"of dtype {array.dtype}")
    return array


class WriteStore(MutableMapping):
    """The ``store`` a ``save_own_variables`` hook fills: one dataset of the object's
    ``vars`` group per key (Keras's ``H5IOStore`` entry)."""

    def __init__(self, group, owner: str, last_written: list | None = None):
        self._group, self._owner = group, owner
        # The writer shares one list across the stores: it holds the last dataset written
        # until the next one is. HDF5 lays a file out by when its objects close, so this
        # keeps the bytes what Lamina's writer has always produced.
        self._last_written = [] if last_written is None else last_written

    def __setitem__(self, key, value) -> None:
        if not isinstance(key, str) or not key or "/" in key or key in (".", ".."):
            raise SavingError(f"{self._owner}.save_own_variables: store keys must be "
                              f"non-empty strings without '/'; received {key!r}")
        array = as_array(value, f"{self._owner}.save_own_variables: store[{key!r}]")
        if key in self._group:
            del self._group[key]
        self._last_written[:] = [create_checked(self._group, key, array)]
        if array.dtype.name == "bfloat16":          # Keras's mark for its opaque bytes
            self._last_written[0].attrs["dtype"] = "bfloat16"

    def __getitem__(self, key):
        if key not in self._group:
            raise KeyError(key)
        dataset = self._group[key]
        array = np.asarray(dataset[()])
        if dataset.attrs.get("dtype") in ("bfloat16", b"bfloat16"):
            array = array.view(bfloat16_dtype())
        return array

    def __delitem__(self, key) -> None:
        if key not in self._group:
            raise KeyError(key)
        del self._group[key]

    def __iter__(self):
        return iter(list(self._group.keys()))

    def __len__(self) -> int:
        return len(self._group)


class ReadStore(Mapping):
    """The ``store`` a ``load_own_variables`` hook reads: the arrays of the object's ``vars``
    group, already read and checked, by name (empty when the file has no such group)."""

    def __init__(self, arrays: dict, where: str):
        self._arrays, self._where = dict(arrays), where

    def __getitem__(self, key):
        if key not in self._arrays:
            raise KeyError(f"{key!r}: not in '{self._where}', which holds "
                           f"{sorted(self._arrays)}")
        return self._arrays[key]

    def __iter__(self):
        return iter(self._arrays)

    def __len__(self) -> int:
        return len(self._arrays)

    def __repr__(self) -> str:
        return f"ReadStore({self._where!r}, keys={list(self._arrays)})"


class HookLoad(NamedTuple):
    """A step of a loading plan: call ``obj.load_own_variables(store)``."""
    obj: object
    store: ReadStore
    describe: str              # "layer 'dense' (stored at 'layers/dense/vars')"
    filepath: str
    skip_mismatch: bool


def _snapshot(obj) -> list:
    variables = getattr(obj, "variables", None) or []
    return [(v, v.numpy()) for v in variables]


def _restore(snapshot: list) -> None:
    for variable, value in snapshot:
        variable.assign(value)


def run_hook_loads(steps: list) -> None:
    """Call each step's ``load_own_variables``; if one raises, restore every variable the
    calls so far could have changed and raise an error naming the file and the object (with
    ``skip_mismatch``: restore that object, warn and go on, as Keras does)."""
    snapshots: list = []
    for step in steps:
        snapshot = _snapshot(step.obj)
        try:
            step.obj.load_own_variables(step.store)
        except Exception as exc:
            _restore(snapshot)
            error = _loading_error(step, exc)
            if step.skip_mismatch:
                warnings.warn(f"{error}; skipped (skip_mismatch=True)", stacklevel=user_stacklevel())
                continue
            for earlier in reversed(snapshots):
                _restore(earlier)
            raise error from exc
        snapshots.append(snapshot)


def _loading_error(step: HookLoad, exc: Exception) -> LaminaError:
    if isinstance(exc, LaminaError):
        return naming_file(exc, step.filepath, f" ({step.describe})")
    return SavingError(f"cannot load '{step.filepath}': {step.describe}: its "
                       f"load_own_variables raised {type(exc).__name__}: {exc}")
