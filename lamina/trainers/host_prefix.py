"""A Sequential model whose first layers work on host data (TextVectorization,
StringLookup, Hashing, ...: Lamina has no string tensors) runs them on the data before the
rest of the model, as Keras recommends (vectorize in the input pipeline): ``fit``,
``evaluate`` and ``predict`` apply them to ``x`` (an array or list of strings), and the
model's graph starts at the first layer that takes tensors."""
from __future__ import annotations

from ..layers.preprocessing.host_layer import HostLayer


def host_prefix(model) -> list:
    """The leading host-data layers of a Sequential model (empty for other models)."""
    stack = getattr(model, "_stack", None) or []
    prefix = []
    for layer in stack:
        if isinstance(layer, HostLayer):
            prefix.append(layer)
        elif prefix or type(layer).__name__ != "InputLayer":
            break
    return prefix


def _is_host_batch(x) -> bool:
    kind = getattr(getattr(x, "dtype", None), "kind", None)    # numpy arrays only
    return isinstance(x, (list, tuple, str)) or (isinstance(kind, str) and kind in "OUS")


def apply_host_prefix(model, x):
    """``x`` after the model's leading host-data layers (unchanged when it has none or when
    ``x`` is not host data, e.g. an already vectorized tensor or a dataset)."""
    prefix = host_prefix(model)
    if not prefix or x is None or not _is_host_batch(x):
        return x
    for layer in prefix:
        x = layer(x)
    return x
