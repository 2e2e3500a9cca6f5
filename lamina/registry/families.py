"""Name lookup by family: each family package (losses, metrics, layers, ...) registers the
table of its built-ins under the Keras module that configs name it by.

A saved config says which family a name belongs to (``"module": "keras.losses"``), and
``"keras.losses"`` and ``"keras.metrics"`` both have a ``MeanSquaredError``, so the
registry must look the name up in the right table. The registry imports no family: each
family calls :func:`register_family` when it is imported, e.g. ``lamina/losses`` does::

    register_family("keras.losses", lambda: ALL_OBJECTS)

The getter is called at every lookup, so a table that changes later is read as it is then.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, NamedTuple


class _Family(NamedTuple):
    table_getter: Callable[[], Mapping[str, Any]]
    strict: bool
    submodules: bool


# Keras module name -> its family, in the order of registration.
_FAMILIES: dict[str, _Family] = {}


def register_family(keras_module: str, table_getter: Callable[[], Mapping[str, Any]], *,
                    strict: bool = True, submodules: bool = False) -> None:
    """Register the table of built-ins that configs name by ``keras_module``.

    ``table_getter()`` returns a mapping of name -> class or function. ``strict``: the table
    lists every built-in of the family, so a name missing there is unknown, never another
    family's built-in of the same name (a loss for a metric). ``submodules``: the table also
    serves modules under ``keras_module`` (``"keras.optimizers.schedules.…"``).
    Registering a module again replaces its table.
    """
    if not isinstance(keras_module, str) or not keras_module:
        raise TypeError(f"register_family: argument 'keras_module' must be a non-empty str "
                        f"such as 'keras.losses'; received {keras_module!r}")
    if not callable(table_getter):
        raise TypeError(f"register_family: argument 'table_getter' must be a callable "
                        f"returning a dict of name -> object (e.g. lambda: ALL_OBJECTS); "
                        f"received {type(table_getter).__name__}")
    _FAMILIES[keras_module] = _Family(table_getter, bool(strict), bool(submodules))


def _family(keras_module) -> _Family | None:
    if not isinstance(keras_module, str):
        return None
    family = _FAMILIES.get(keras_module)
    if family is not None:
        return family
    for name, candidate in _FAMILIES.items():
        if candidate.submodules and keras_module.startswith(name):
            return candidate
    return None


def family_table(keras_module) -> Mapping[str, Any] | None:
    """The table of the family that ``keras_module`` names, or None if none is registered."""
    family = _family(keras_module)
    return family.table_getter() if family is not None else None


def lookup_in_family(keras_module, name: str):
    """The built-in ``name`` of the family that ``keras_module`` names, or None."""
    table = family_table(keras_module)
    return table.get(name) if table is not None else None


def is_strict_family(keras_module) -> bool:
    """Whether ``keras_module`` names a family whose table lists all its built-ins."""
    family = _FAMILIES.get(keras_module) if isinstance(keras_module, str) else None
    return family is not None and family.strict


def registered_families() -> list[str]:
    """The Keras module names with a registered table."""
    return list(_FAMILIES)
