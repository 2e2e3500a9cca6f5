"""``Dot``: the per-sample dot product of two tensors along one axis of each."""
from __future__ import annotations

from ... import backend, ops
from ...errors import ShapeError, describe_shape
from .base_merge import Merge, describe_shapes


class Dot(Merge):
    """Per-sample dot product of two tensors (Keras 3's ``Dot``, ``batch_dot`` semantics).

    ``axes``: an int (the same axis of both inputs) or a pair, one axis per input; axis 0
    is the batch and cannot be summed. The result has the first input's remaining axes,
    then the second's (its batch axis excluded); a rank-1 result becomes ``(batch, 1)``.
    ``normalize=True`` L2-normalizes both inputs along their axes first, giving cosine
    similarities. The output has no mask.

    Args:
        axes: An int (the same axis of both inputs) or a pair, one axis per input; the batch
            axis cannot be summed.
        normalize: Whether to L2-normalize both inputs along ``axes`` first (cosine similarity).
    """

    min_inputs = max_inputs = 2
    expand_ranks = False

    def __init__(self, axes, normalize=False, **kwargs):
        super().__init__(**kwargs)
        if isinstance(axes, (list, tuple)):
            if len(axes) != 2 or not all(isinstance(a, int) and not isinstance(a, bool)
                                         for a in axes):
                raise ValueError(f"{self.name}: argument 'axes' must be an int or a pair of "
                                 f"ints (one axis per input); received {axes!r}")
        elif isinstance(axes, bool) or not isinstance(axes, int):
            raise TypeError(f"{self.name}: argument 'axes' must be an int or a pair of "
                            f"ints; received {axes!r}")
        self.axes = axes
        self.normalize = bool(normalize)

    def _resolve_axes(self, shapes) -> tuple:
        pair = (self.axes, self.axes) if isinstance(self.axes, int) else tuple(self.axes)
        resolved = []
        for axis, shape in zip(pair, shapes):
            rank = len(shape)
            if rank < 2 or not -rank <= axis < rank or axis % rank == 0:
                raise ShapeError(f"{self.name}: argument 'axes' {self.axes!r} must name a "
                                 f"non-batch axis of each input, and each input needs "
                                 f"rank >= 2; received shapes {describe_shapes(shapes)}")
            resolved.append(axis % rank)
        return tuple(resolved)

    def _check_shapes(self, shapes) -> None:
        a0, a1 = self._resolve_axes(shapes)
        (b0, d0), (b1, d1) = (shapes[0][0], shapes[0][a0]), (shapes[1][0], shapes[1][a1])
        if None not in (b0, b1) and b0 != b1:
            raise ShapeError(f"{self.name}: inputs must have one batch size; received "
                             f"shapes {describe_shapes(shapes)}")
        if None not in (d0, d1) and d0 != d1:
            raise ShapeError(f"{self.name}: the summed axes must have one size, but axis "
                             f"{a0} of the first input has {d0} and axis {a1} of the second "
                             f"has {d1}; received shapes {describe_shapes(shapes)}")

    def _merge_function(self, inputs, masks):
        x, y = inputs
        a0, a1 = self._resolve_axes([x.shape, y.shape])
        if self.normalize:
            x, y = _l2_normalize(x, a0), _l2_normalize(y, a1)
        return self._batch_dot(x, y, a0, a1)

    def _batch_dot(self, x, y, a0: int, a1: int):
        """Keras's ``batch_dot``: one batched matmul of x (batch, M, d) by y (batch, d, N)."""
        x_rank, y_rank = len(x.shape), len(y.shape)
        if x_rank == 2:
            x, a0 = ops.expand_dims(x, 1), a0 + 1
        if y_rank == 2:
            y = ops.expand_dims(y, 2)
        x, y = ops.moveaxis(x, a0, -1), ops.moveaxis(y, a1, 1)
        kept_x, kept_y = x.shape[1:-1], y.shape[2:]
        if len(kept_x) > 1:
            x = self._reshape(x, (_product(self, x.shape, kept_x), x.shape[-1]))
        if len(kept_y) > 1:
            y = self._reshape(y, (y.shape[1], _product(self, y.shape, kept_y)))
        out = ops.matmul(x, y)
        if len(kept_x) > 1 or len(kept_y) > 1:
            out = self._reshape(out, (*kept_x, *kept_y))
        if x_rank == 2:
            return ops.squeeze(out, 1)
        return ops.squeeze(out, -1) if y_rank == 2 else out

    @staticmethod
    def _reshape(x, sample_shape):
        batch = x.shape[0]
        return ops.reshape(x, (-1 if batch is None else batch, *sample_shape))

    def compute_mask(self, inputs, mask=None):
        return None

    def get_config(self) -> dict:
        # A pair as a list: the form a config has after its trip through JSON.
        axes = self.axes if isinstance(self.axes, int) else list(self.axes)
        return {**super().get_config(), "axes": axes, "normalize": self.normalize}


def _product(layer, shape, sizes) -> int:
    total = 1
    for size in sizes:
        if size is None:
            raise ShapeError(f"{layer.name}: inputs of rank > 3 need known non-batch sizes; "
                             f"received shape {describe_shape(shape)}")
        total *= size
    return total


def _l2_normalize(x, axis: int):
    """``x / max(||x||, epsilon)`` along ``axis`` (Keras's ``ops.normalize``), written as a
    reciprocal square root of a clipped sum so a zero vector has a finite gradient."""
    eps = backend.epsilon()
    squares = ops.sum(ops.multiply(x, x), axis=axis, keepdims=True)
    return ops.multiply(x, ops.rsqrt(ops.maximum(squares, eps * eps)))


def dot(inputs, axes=-1, **kwargs):
    """Keras's ``keras.layers.dot(inputs, axes=-1, **kwargs)``; ``kwargs`` (``normalize``,
    ``name``, ...) go to the :class:`Dot` layer.

    Args:
        inputs: A list of two tensors.
        axes: An int, or a pair of axes (one per input), summed over.

    Returns:
        A tensor: the per-sample dot products.
    """
    return Dot(axes=axes, **kwargs)(inputs)
