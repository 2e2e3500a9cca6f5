"""Which layers ``model.quantize`` touches: the leaf layers (layers without sublayers) of a
model or block, and Keras's ``filters`` (a regular expression or a list of them searched in
the layer's name, or a predicate)."""
from __future__ import annotations

import re


def should_quantize_layer(layer, filters) -> bool:
    """Keras's rule for ``filters``: None selects every layer."""
    if filters is None:
        return True
    if isinstance(filters, str):
        return bool(re.search(filters, layer.name))
    if isinstance(filters, (list, tuple)):
        return any(re.search(pattern, layer.name) for pattern in filters)
    return bool(filters(layer))


def leaf_layers(root) -> list:
    """The layers under ``root`` (itself included) that hold no sublayers, in order."""
    found, seen, stack = [], set(), [root]
    while stack:
        layer = stack.pop()
        if id(layer) in seen:
            continue
        seen.add(id(layer))
        children = list(layer._sublayers())
        if not children:
            found.append(layer)
        stack.extend(reversed(children))
    return found
