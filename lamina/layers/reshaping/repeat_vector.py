"""``RepeatVector``: a (batch, features) input repeated ``n`` times along a new axis 1."""
from __future__ import annotations

from ... import ops
from ..input_spec import InputSpec
from ..layer import Layer


class RepeatVector(Layer):
    """Repeats each sample ``n`` times: (batch, features) -> (batch, n, features)
    (Keras 3's ``RepeatVector``).

    Args:
        n: Number of repetitions.
    """

    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError(f"{self.name}: argument 'n' must be an int; received {n!r} "
                            f"(Expected an integer value for `n`, got {type(n)}.)")
        if n <= 0:
            raise ValueError(f"{self.name}: argument 'n' must be a positive int; "
                             f"received {n} (Argument `n` should be a positive integer.)")
        self.n = n
        self.input_spec = InputSpec.described("(batch, features)", ndim=2)

    def call(self, inputs):
        return ops.repeat(ops.expand_dims(inputs, 1), self.n, axis=1)

    def compute_output_shape(self, input_shape):
        return (input_shape[0], self.n, input_shape[1])

    def get_config(self) -> dict:
        return {**super().get_config(), "n": self.n}
