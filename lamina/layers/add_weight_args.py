"""``Layer.add_weight``'s positional arguments, as Keras 3 takes them: at most
``(shape, initializer, dtype)``; a string first (Keras 2's ``add_weight(name, ...)``) is an
error that says to pass ``name=`` by keyword."""
from __future__ import annotations

from ..errors import ArgumentTypeError
from .own_variables import LayerError


def resolve_positional(layer_name: str, args: tuple, keywords: dict) -> dict:
    """``keywords`` (shape, initializer, dtype) with ``args`` filled in by position."""
    if not args:
        return keywords
    where = f"{layer_name}.add_weight"
    if len(args) > 3:
        raise ArgumentTypeError(f"{where}: add_weight() takes at most 3 positional arguments "
                                f"(shape, initializer, dtype) but {len(args)} were given.")
    if isinstance(args[0], str):
        raise LayerError(f"{where}: `name` must be passed as a keyword argument. Received: "
                         f"add_weight('{args[0]}', ...). Use: add_weight(shape=..., "
                         f"name='{args[0]}').")
    result = dict(keywords)
    for key, value in zip(("shape", "initializer", "dtype"), args):
        if result.get(key) is not None:
            raise LayerError(f"{where}: `{key}` was passed both positionally and as a "
                             f"keyword argument (positional {value!r}, keyword "
                             f"{result[key]!r}).")
        result[key] = value
    return result
