"""``Multiply``: the elementwise product of a list of tensors."""
from __future__ import annotations

from ... import ops
from .base_merge import Merge, broadcast_mask


class Multiply(Merge):
    """The elementwise product of a list of tensors (Keras 3's ``Multiply``).

    As in Keras 3: a masked-out entry of an input counts as 1; when every input has a mask,
    the entries masked out in all of them are 0 in the output."""

    def _merge_function(self, inputs, masks):
        all_masked = all(m is not None for m in masks)
        output = output_mask = None
        for x, mask in zip(inputs, masks):
            if mask is not None:
                mask = broadcast_mask(mask, x)
                x = ops.where(mask, x, ops.ones_like(x))
                if all_masked:
                    output_mask = mask if output_mask is None else \
                        ops.logical_or(output_mask, mask)
            output = x if output is None else ops.multiply(output, x)
        if all_masked:
            output = ops.where(output_mask, output, ops.zeros_like(output))
        return output


def multiply(inputs, **kwargs):
    """Keras's ``keras.layers.multiply(inputs)``: ``Multiply(**kwargs)(inputs)``.

    Args:
        inputs: A list of at least two tensors of the same shape.

    Returns:
        A tensor: the element-wise product of the inputs.
    """
    return Multiply(**kwargs)(inputs)
