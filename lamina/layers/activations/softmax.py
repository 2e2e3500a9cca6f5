"""``Softmax``: softmax over ``axis``, with Keras's masking (Keras 3's layer)."""
from __future__ import annotations

import numbers

from ... import ops
from ..layer import Layer


def large_negative_number(dtype: str) -> float:
    """What masked logits get added: -1e9, or -3e4 where float16 would overflow."""
    return -3e4 if dtype == "float16" else -1e9


class Softmax(Layer):
    """Keras 3's ``Softmax``: ``exp(x) / sum(exp(x), axis)`` (``axis`` an int or a list).

    ``call(inputs, mask=None)``: positions where ``mask`` is False (it broadcasts against
    ``inputs``) get :func:`large_negative_number` added first, so they receive ~0
    probability, as in Keras.
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        values = list(axis) if isinstance(axis, (list, tuple)) else [axis]
        if not values or any(isinstance(a, bool) or not isinstance(a, numbers.Integral)
                             for a in values):
            raise TypeError(f"{self.name}: argument 'axis' must be an int or a non-empty list "
                            f"of ints; received {axis!r}")
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else int(axis)
        self.supports_masking = True

    def call(self, inputs, mask=None):
        rank = len(inputs.shape)
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        if any(not -rank <= a < rank for a in axes):
            raise ValueError(f"{self.name}: argument 'axis' must name axes of the input (rank "
                             f"{rank}); received axis={self.axis} for input shape "
                             f"{tuple(inputs.shape)}")
        if mask is not None:
            dropped = ops.subtract(1.0, ops.cast(mask, inputs.dtype))
            inputs = ops.add(inputs, ops.multiply(dropped,
                                                  large_negative_number(inputs.dtype)))
        return ops.softmax(inputs, axis=tuple(axes))

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis}
