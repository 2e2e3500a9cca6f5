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
    """Keras's ``keras.layers.add(inputs)``: ``Add(**kwargs)(inputs)``.

    Args:
        inputs: A list of at least two tensors of the same shape.

    Returns:
        A tensor: the element-wise sum of the inputs.

    Example:

    >>> lamina.layers.add([np.array([[1.0, 2.0]]), np.array([[3.0, 4.0]])]).numpy()
    array([[4., 6.]], dtype=float32)
    """
    return Add(**kwargs)(inputs)
