"""``Concatenate``: a list of tensors joined along one axis."""
from __future__ import annotations

from ... import ops
from ...errors import ShapeError
from .base_merge import Merge, broadcast_mask, describe_shapes


class Concatenate(Merge):
    """Joins a list of tensors along ``axis`` (Keras 3's ``Concatenate``); all other sizes
    must match.

    Masks (Keras 3): an input without a mask counts as all-valid; the masks are broadcast
    to their inputs' shapes, joined along ``axis`` and reduced with ``any`` over the last
    axis, so a step is valid when any of its features is.

    Args:
        axis: Axis to join along.

    Example:

    >>> lamina.layers.Concatenate()([np.zeros((2, 3)), np.ones((2, 5))]).shape
    (2, 8)
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise ValueError(f"{self.name}: argument 'axis' must be an int; "
                             f"received {axis!r}")
        self.axis = axis

    def _check_shapes(self, shapes) -> None:
        rank = len(shapes[0])
        if any(len(s) != rank for s in shapes):
            raise ShapeError(f"{self.name}: inputs must all have one rank; received shapes "
                             f"{describe_shapes(shapes)}")
        if not -rank <= self.axis < rank:
            raise ShapeError(f"{self.name}: argument 'axis' {self.axis} is out of range for "
                             f"inputs of rank {rank}; received shapes "
                             f"{describe_shapes(shapes)}")
        axis = self.axis % rank
        for i in range(rank):
            sizes = {s[i] for s in shapes} - {None}
            if i != axis and len(sizes) > 1:
                raise ShapeError(f"{self.name}: a `Concatenate` layer requires inputs with "
                                 f"matching shapes except for the concatenation axis "
                                 f"({self.axis}); received shapes "
                                 f"{describe_shapes(shapes)}")

    def _merge_function(self, inputs, masks):
        return ops.concatenate(inputs, axis=self.axis)

    def compute_mask(self, inputs, mask=None):
        if mask is None:
            return None
        self._check_masks(inputs, mask)
        if all(m is None for m in mask):
            return None
        full = [ops.ones_like(x, dtype="bool") if m is None else broadcast_mask(m, x)
                for x, m in zip(inputs, mask)]
        return ops.any(ops.concatenate(full, axis=self.axis), axis=-1)

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis}


def concatenate(inputs, axis=-1, **kwargs):
    """Keras's ``keras.layers.concatenate(inputs, axis=-1)``.

    Args:
        inputs: A list of tensors whose sizes match except along ``axis``.
        axis: Axis to join along.

    Returns:
        A tensor: the inputs joined along ``axis``.

    Example:

    >>> lamina.layers.concatenate([np.zeros((2, 3)), np.ones((2, 5))]).shape
    (2, 8)
    """
    return Concatenate(axis=axis, **kwargs)(inputs)
