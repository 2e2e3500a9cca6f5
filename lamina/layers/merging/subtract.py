"""``Subtract``: the difference of two tensors."""
from __future__ import annotations

from ... import ops
from .base_merge import Merge


class Subtract(Merge):
    """``inputs[0] - inputs[1]`` for a list of exactly two tensors (Keras 3's ``Subtract``)."""

    min_inputs = max_inputs = 2

    def _merge_function(self, inputs, masks):
        return ops.subtract(inputs[0], inputs[1])


def subtract(inputs, **kwargs):
    """Keras's ``keras.layers.subtract(inputs)``: ``Subtract(**kwargs)(inputs)``.

    Args:
        inputs: A list of at least two tensors of the same shape.

    Returns:
        A tensor: ``inputs[0] - inputs[1]``.
    """
    return Subtract(**kwargs)(inputs)
