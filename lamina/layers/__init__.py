"""Layers (Keras 3's ``keras.layers``), one per file, grouped by family."""
from ..registry import family_table, register_builtin, register_family, serialize_keras_object
from ..registry.lookup import deserialize_from
from . import (
    activations as _activations, attention as _attention, audio as _audio, convolutional as _conv,
    core as _core, merging as _merging, normalization as _normalization, pooling as _pooling,
    preprocessing as _preprocessing, recurrent as _recurrent, regularization as _regularization,
    reshaping as _reshaping
)
from .activations import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .audio import *  # noqa: F401,F403
from .convolutional import *  # noqa: F401,F403
from .core import *  # noqa: F401,F403
from .input_spec import InputSpec
from .layer import Layer
from .merging import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .preprocessing import *  # noqa: F401,F403
from .recurrent import *  # noqa: F401,F403
from .regularization import *  # noqa: F401,F403
from .reshaping import *  # noqa: F401,F403

_FAMILIES = (_activations, _attention, _conv, _core, _merging, _normalization, _pooling,
             _preprocessing, _recurrent, _regularization, _reshaping, _audio)

__all__ = sorted({"Layer", "InputSpec"}.union(*(family.__all__ for family in _FAMILIES)))
_EXPORTS = list(__all__)

for _name in _EXPORTS:
    _obj = globals()[_name]
    if isinstance(_obj, type) and issubclass(_obj, Layer):
        register_builtin(_obj)


_BUILTIN_TABLE: dict = {}


def _layer_table() -> dict:
    # Runs for every layer a config holds: the built-in part is made once (the exports are
    # fixed at import), the models part is read each time (lamina.models registers it later)
    if not _BUILTIN_TABLE:
        names = globals()
        _BUILTIN_TABLE.update({name: names[name] for name in _EXPORTS
                               if isinstance(names[name], type)
                               and issubclass(names[name], Layer)})
        # Saved configs name a class by its own __name__ where Keras's export name differs
        # (GroupQueryAttention is the class GroupedQueryAttention)
        _BUILTIN_TABLE.update({cls.__name__: cls for cls in list(_BUILTIN_TABLE.values())})
    table = dict(_BUILTIN_TABLE)
    # Models are layers too: Sequential, Functional and Model come from the table that
    # lamina.models registers (models import layers, so layers cannot import models).
    models = family_table("keras.models") or {}
    table.update(models)
    table.update({cls.__name__: cls for cls in models.values()})
    return table


register_family("keras.layers", _layer_table)


def serialize(layer) -> dict:
    """A layer as Keras 3's ``{"module", "class_name", "config", "registered_name"}``.

    Args:
        layer: The layer to serialize.

    Returns:
        A dict ``{'module', 'class_name', 'config', 'registered_name'}``.
    """
    return serialize_keras_object(layer)


def deserialize(config, custom_objects=None):
    """A layer (or model) from :func:`serialize`'s output; names resolve through Lamina's
    layer table, ``custom_objects`` and registered classes only.

    Args:
        config: A dict from :func:`serialize` (``class_name`` and ``config``).
        custom_objects: Dict of names to custom classes or functions to resolve.

    Returns:
        The layer (or model).

    Raises:
        TypeError: if ``config`` is not a string or a dict. UnknownObjectError (a ValueError):
            if the class name is not known.
    """
    return deserialize_from("layer", config, _layer_table(), custom_objects)

__all__ = _EXPORTS + ["serialize", "deserialize"]
