"""``Average``: the elementwise mean of a list of tensors."""
from __future__ import annotations

from ... import ops
from .base_merge import Merge


class Average(Merge):
    """The elementwise mean of a list of tensors (Keras 3's ``Average``)."""

    def _merge_function(self, inputs, masks):
        output = inputs[0]
        for x in inputs[1:]:
            output = ops.add(output, x)
        return ops.divide(output, len(inputs))


def average(inputs, **kwargs):
    """Keras's ``keras.layers.average(inputs)``: ``Average(**kwargs)(inputs)``.

    Args:
        inputs: A list of at least two tensors of the same shape.

    Returns:
        A tensor: the element-wise mean of the inputs.
    """
    return Average(**kwargs)(inputs)
