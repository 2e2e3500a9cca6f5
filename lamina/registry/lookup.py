"""The ``get`` / ``deserialize`` logic shared by the families (initializers, regularizers,
constraints, activations, losses, metrics, optimizers, callbacks, layers: Keras 3's
``keras.<kind>.get`` and ``keras.<kind>.deserialize``).

Each family keeps a table of its names (class names, snake-case names, aliases). Names are
looked up in that table first, so a built-in of another family with the same bare name (a
layer called ``Identity``, say) can never be picked up by mistake; users' objects come from
``custom_objects``, a custom object scope, or ``register_keras_serializable``.
"""
from __future__ import annotations

import difflib
from typing import Any

from .object_registration import UnknownObjectError, get_registered_object
from .families import family_table, registered_families
from .serialization import deserialize_keras_object


def _valid_names(table: dict) -> str:
    return ", ".join(repr(name) for name in sorted(table))


def suggest(name: str, table: dict, kind: str) -> str:
    """Where to look instead of ``name``: "did you mean ...?" when some names are close,
    and the valid names themselves only when they are few."""
    close, seen = [], set()
    for match in difflib.get_close_matches(name, list(table), n=6, cutoff=0.75):
        folded = match.lower().replace("_", "")
        if folded not in seen:             # 'accuracy' and 'Accuracy' are one suggestion
            seen.add(folded)
            close.append(match)
    if not close:                          # 'MSE' for 'mse', 'dense' for 'Dense'
        folded = {key.lower().replace("_", ""): key for key in table}
        close = [folded[f] for f in [name.lower().replace("_", "")] if f in folded]
    text = ""
    if close:
        quoted = [repr(c) for c in close[:3]]
        text = "did you mean " + (" or ".join(quoted) if len(quoted) < 3 else
                                  f"{quoted[0]}, {quoted[1]} or {quoted[2]}") + "? "
    if len(table) <= _LISTED:
        return text + f"Lamina's built-in {kind}s are {_valid_names(table)}"
    return text + f"Lamina has {len(table)} built-in {kind}s (lamina.{kind}s)"


_LISTED = 20


def unknown_name(kind: str, name: str, table: dict) -> UnknownObjectError:
    """The error for a string that names no ``kind``, with the names it is close to."""
    return UnknownObjectError(
        f"{kind}s.get: unknown {kind} {name!r} (argument 'identifier'); "
        f"{suggest(name, table, kind)}; or register your own with "
        f"lamina.saving.register_keras_serializable")


def _is_users(obj) -> bool:
    # Lamina's own objects are found through the family tables only: the global registry
    # also holds other families' built-ins (a string 'Zeros' must not become an activation).
    return not getattr(obj, "__module__", "").startswith("lamina.")


def lookup_name(kind: str, name: str, table: dict) -> Any:
    """The object ``name`` stands for: the family table, then users' registered objects."""
    if name in table:
        return table[name]
    obj = get_registered_object(name)
    if obj is not None and _is_users(obj):
        return obj
    raise unknown_name(kind, name, table)


def deserialize_from(kind: str, config, table: dict, custom_objects: dict | None = None):
    """Keras's ``<kind>.deserialize``: a name or a ``{"class_name", "config"}`` dict."""
    if isinstance(config, str):
        if custom_objects and config in custom_objects:
            return custom_objects[config]
        return lookup_name(kind, config, table)
    if not isinstance(config, dict):
        raise TypeError(f"{kind}s.deserialize: argument 'config' must be a string or a dict "
                        f"with 'class_name' and 'config'; received {config!r}")
    # The family table goes in as custom objects: they are searched before the global
    # registry, and the user's own custom_objects still win over both.
    merged = {**table, **(custom_objects or {})}
    try:
        return deserialize_keras_object(config, custom_objects=merged, kind=kind)
    except UnknownObjectError as exc:
        name = config.get("class_name")
        hint = suggest(name, table, kind) if isinstance(name, str) else ""
        raise UnknownObjectError(f"{exc}" + (f"; {hint}" if hint else "")) from None


def get_from(kind: str, identifier, table: dict, instantiate: bool = True) -> Any:
    """Keras's ``<kind>.get`` for a non-None ``identifier``: a name, a config dict, an
    instance, a class (instantiated with no arguments) or any callable."""
    if isinstance(identifier, str):
        obj = lookup_name(kind, identifier, table)
    elif isinstance(identifier, dict):
        obj = deserialize_from(kind, identifier, table)
    else:
        obj = identifier
    if instantiate and isinstance(obj, type):
        obj = obj()
    if not callable(obj):
        raise TypeError(f"{kind}s.get: could not interpret {kind} identifier {identifier!r}: "
                        f"expected None, a name, a config dict, an instance or a callable")
    return obj


def deserialize_in_family(keras_module: str, kind: str, config,
                          custom_objects: dict | None = None):
    """``<family>.deserialize(config, custom_objects)`` for the family registered under
    ``keras_module`` (``"keras.layers"``: a layer or a model), for code below the family
    (lamina/saving reads models this way without importing layers)."""
    table = family_table(keras_module)
    if table is None:
        raise UnknownObjectError(f"cannot deserialize a {kind}: no family is registered "
                                 f"for {keras_module!r} (registered: "
                                 f"{registered_families()})")
    return deserialize_from(kind, config, table, custom_objects)
