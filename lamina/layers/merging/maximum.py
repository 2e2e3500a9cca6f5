"""``Maximum``: the elementwise maximum of a list of tensors."""
from __future__ import annotations

from ... import ops
from .base_merge import Merge, masked_reduce


class Maximum(Merge):
    """The elementwise maximum of a list of tensors (Keras 3's ``Maximum``).

    As in Keras 3: a masked-out entry of an input takes no part (the other inputs decide it)."""

    def _merge_function(self, inputs, masks):
        return masked_reduce(ops.maximum, inputs, masks)


def maximum(inputs, **kwargs):
    """Keras's ``keras.layers.maximum(inputs)``: ``Maximum(**kwargs)(inputs)``.

    Args:
        inputs: A list of at least two tensors of the same shape.

    Returns:
        A tensor: the element-wise maximum of the inputs.
    """
    return Maximum(**kwargs)(inputs)
