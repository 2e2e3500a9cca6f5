"""``Add``: the elementwise sum of a list of tensors."""
from __future__ import annotations

from ... import ops
from .base_merge import Merge


class Add(Merge):
    """The elementwise sum of a list of tensors (Keras 3's ``Add``)."""

    def _merge_function(self, inputs, masks):
        output = inputs[0]
        for x in inputs[1:]:
            output = ops.add(output, x)
        return output


def add(inputs, **kwargs):
    """Keras's ``keras.layers.add(inputs)``: ``Add(**kwargs)(inputs)``."""
    return Add(**kwargs)(inputs)
