"""``Model.quantize`` (Keras 3's API): quantize every leaf layer that can be.

Each layer without sublayers (that ``filters`` selects) gets ``layer.quantize(mode,
config=config)``; a layer that cannot be quantized (Flatten, Conv2D, ...) is skipped with
Keras's warning. Compiled steps retrace by themselves: the new weights change the model's
fingerprint (lamina/core/structure.py).
"""
from __future__ import annotations

import re
import warnings


def _should_quantize(layer, filters) -> bool:
    if filters is None:
        return True
    if isinstance(filters, str):
        return bool(re.search(filters, layer.name))
    if isinstance(filters, (list, tuple)):
        return any(re.search(pattern, layer.name) for pattern in filters)
    return bool(filters(layer))


def _leaf_layers(model) -> list:
    found, seen, stack = [], set(), [model]
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


class ModelQuantizeMixin:
    def quantize(self, mode=None, config=None, filters=None, **kwargs):
        """Quantize the weights of every layer that supports it (Dense, EinsumDense,
        Embedding, ReversibleEmbedding, the attention projections) in ``mode`` (``"int8"``) or as ``config`` says. ``filters``: a regular
        expression (or a list of them) searched in layer names, or a predicate on layers."""
        type_check = kwargs.pop("type_check", True)
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments passed to "
                             f"{type(self).__name__}: {kwargs}")
        if filters is not None and not (isinstance(filters, (str, list, tuple))
                                        or callable(filters)):
            raise ValueError(f"The `filters` argument must be a regex string, a list of regex "
                             f"strings, or a callable. Received: {type(filters)}")
        for layer in _leaf_layers(self):
            if not _should_quantize(layer, filters):
                continue
            try:
                layer.quantize(mode, type_check=type_check, config=config)
            except NotImplementedError as error:
                warnings.warn(str(error), stacklevel=2)
