"""``UpSampling1D``: each step repeated ``size`` times."""
from __future__ import annotations

from ... import ops
from ...errors import ArgumentTypeError
from ..input_spec import InputSpec
from ..layer import Layer


class UpSampling1D(Layer):
    """Repeats each step of a (batch, steps, features) input ``size`` times along the steps
    axis (Keras 3's ``UpSampling1D``).

    Args:
        size: Repetitions of each step.
    """

    def __init__(self, size=2, **kwargs):
        super().__init__(**kwargs)
        if isinstance(size, bool) or not isinstance(size, int):
            raise ArgumentTypeError(f"{self.name}: argument 'size' must be a positive int; "
                                    f"received {size!r} (Expected an integer value for "
                                    f"`size`, got {type(size)}.)")
        if size <= 0:
            raise ValueError(f"{self.name}: argument 'size' must be a positive int; "
                             f"received {size!r} (Argument `size` should be a positive "
                             f"integer.)")
        self.size = size
        self.input_spec = InputSpec.described("(batch, steps, features)", ndim=3)

    def call(self, inputs):
        return ops.repeat(inputs, self.size, axis=1)

    def compute_output_shape(self, input_shape):
        steps = None if input_shape[1] is None else input_shape[1] * self.size
        return (input_shape[0], steps, input_shape[2])

    def get_config(self) -> dict:
        return {**super().get_config(), "size": self.size}
