"""``Permute``: the non-batch axes of each sample reordered."""
from __future__ import annotations

from ... import ops
from ..input_spec import InputSpec
from ..layer import Layer


class Permute(Layer):
    """Permutes the non-batch axes (Keras 3's ``Permute``). ``dims`` is 1-indexed: the
    batch axis is 0 and stays first, e.g. ``Permute((2, 1))`` swaps steps and features.

    Args:
        dims: Permutation of the non-batch axes, 1-indexed, e.g. ``(2, 1)``.
    """

    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        try:
            dims = tuple(dims)
        except TypeError:
            dims = None
        if dims is None or not all(isinstance(d, int) and not isinstance(d, bool)
                                   for d in dims) \
                or sorted(dims) != list(range(1, len(dims) + 1)):
            raise ValueError(f"{self.name}: argument 'dims' must be a permutation of 1..n "
                             f"(1-indexed; the batch axis 0 is not included); received "
                             f"{dims!r} (Invalid permutation argument `dims` for Permute "
                             f"Layer. The set of indices in `dims` must be consecutive and "
                             f"start from 1.)")
        self.dims = dims
        self.input_spec = InputSpec(ndim=len(dims) + 1)

    def call(self, inputs):
        return ops.transpose(inputs, (0, *self.dims))

    def compute_output_shape(self, input_shape):
        shape = tuple(input_shape)
        return (shape[0], *(shape[d] for d in self.dims))

    def get_config(self) -> dict:
        return {**super().get_config(), "dims": self.dims}
