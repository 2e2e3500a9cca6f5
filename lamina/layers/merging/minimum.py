"""``Minimum``: the elementwise minimum of a list of tensors."""
from __future__ import annotations

from ... import ops
from .base_merge import Merge, masked_reduce


class Minimum(Merge):
    """The elementwise minimum of a list of tensors (Keras 3's ``Minimum``).

    As in Keras 3: a masked-out entry of an input takes no part (the other inputs decide it)."""

    def _merge_function(self, inputs, masks):
        return masked_reduce(ops.minimum, inputs, masks)


def minimum(inputs, **kwargs):
    """Keras's ``keras.layers.minimum(inputs)``: ``Minimum(**kwargs)(inputs)``.

    Args:
        inputs: A list of at least two tensors of the same shape.

    Returns:
        A tensor: the element-wise minimum of the inputs.
    """
    return Minimum(**kwargs)(inputs)
