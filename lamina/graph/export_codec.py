"""The JSON side of exported graphs (``lamina/graph/export.py``): attribute values with
tuples kept, nested structures of inputs and outputs."""
from __future__ import annotations

from .errors import ExportError


def encode(value, where: str, special=None):
    """JSON for an attribute value, tuples kept as {"__tuple__": [...]}. ``special(value)``
    may encode other types (a tagged dict), or return None."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, tuple):
        return {"__tuple__": [encode(v, where, special) for v in value]}
    if isinstance(value, list):
        return [encode(v, where, special) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"__dict__": [[k, encode(v, where, special)] for k, v in value.items()]}
    if getattr(value, "shape", None) == () and hasattr(value, "item"):
        return encode(value.item(), where, special)      # a numpy / cupy scalar
    encoded = special(value) if special is not None else None
    if encoded is not None:
        return encoded
    raise ExportError(f"export: {where} has an attribute of type {type(value).__name__} "
                      f"({value!r:.60}); exported graphs hold JSON values, tuples and dicts")


def decode(value, special=None):
    """The inverse of :func:`encode`; ``special`` maps the tags of other types to their
    decoders."""
    if isinstance(value, list):
        return [decode(v, special) for v in value]
    if isinstance(value, dict):
        tag, content = next(iter(value.items())) if len(value) == 1 else (None, None)
        if tag == "__tuple__":
            return tuple(decode(v, special) for v in content)
        if tag == "__dict__":
            return {k: decode(v, special) for k, v in content}
        if special is not None and tag in special:
            return special[tag](content)
        raise ExportError(f"load_exported: unexpected JSON object {value!r:.80}")
    return value


def encode_structure(structure):
    """A nested list/tuple/dict with each leaf replaced by {"leaf": null}."""
    if isinstance(structure, dict):
        return {"dict": [[str(k), encode_structure(v)] for k, v in structure.items()]}
    if isinstance(structure, (list, tuple)):
        kind = "list" if isinstance(structure, list) else "tuple"
        return {kind: [encode_structure(v) for v in structure]}
    return {"leaf": None}


def decode_structure(encoded):
    """The structure back, with 0 at every leaf (for ``tree.pack_sequence_as``)."""
    if "dict" in encoded:
        return {k: decode_structure(v) for k, v in encoded["dict"]}
    if "list" in encoded:
        return [decode_structure(v) for v in encoded["list"]]
    if "tuple" in encoded:
        return tuple(decode_structure(v) for v in encoded["tuple"])
    return 0
