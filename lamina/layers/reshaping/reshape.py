"""``Reshape``: each sample reshaped to ``target_shape`` (one size may be -1)."""
from __future__ import annotations

from ... import ops
from ...errors import ShapeError, describe_shape
from ..layer import Layer


class Reshape(Layer):
    """Reshapes every sample to ``target_shape`` (Keras 3's ``Reshape``); the batch axis is
    kept. One entry of ``target_shape`` may be -1: it is inferred from the input's size.
    A size may be 0 (an empty sample), as in Keras.

    Args:
        target_shape: Shape of each sample, without the batch axis; one entry may be -1.

    Example:

    >>> lamina.layers.Reshape((3, -1))(np.zeros((2, 12))).shape
    (2, 3, 4)
    """

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        if isinstance(target_shape, int) and not isinstance(target_shape, bool):
            target_shape = (target_shape,)
        try:
            target_shape = tuple(target_shape)
        except TypeError:
            target_shape = None
        if target_shape is None or not all(
                isinstance(d, int) and not isinstance(d, bool) and d >= -1
                for d in target_shape):
            raise ValueError(f"{self.name}: argument 'target_shape' must be a tuple of "
                             f"non-negative ints (one may be -1), without the batch size; "
                             f"received {target_shape!r} (Each dimension in `target_shape` "
                             f"must be a non-negative integer, or `-1` for a single unknown "
                             f"dimension. Received: target_shape={target_shape}.)")
        if target_shape.count(-1) > 1:
            raise ValueError(f"{self.name}: argument 'target_shape' may contain at most one "
                             f"-1; received {target_shape} (There must be at most one unknown "
                             f"dimension (-1) in `target_shape`. Received: "
                             f"target_shape={target_shape}.)")
        self.target_shape = target_shape

    def _resolve(self, input_shape) -> tuple:
        """``target_shape`` with its -1 filled in (None when the input size is unknown)."""
        sample = tuple(input_shape)[1:]
        known = 1
        for d in self.target_shape:
            if d != -1:
                known *= d
        if any(d is None for d in sample):
            return tuple(None if d == -1 else d for d in self.target_shape)
        size = 1
        for d in sample:
            size *= d
        if -1 in self.target_shape and known and size % known == 0:
            return tuple(size // known if d == -1 else d for d in self.target_shape)
        if -1 not in self.target_shape and known == size:
            return self.target_shape
        raise ShapeError(f"{self.name}: cannot reshape samples of shape "
                         f"{describe_shape(sample)} ({size} values) into target_shape "
                         f"{describe_shape(self.target_shape)}; received input shape "
                         f"{describe_shape(input_shape)}")

    def call(self, inputs):
        target = self._resolve(inputs.shape)
        batch = inputs.shape[0]
        if None in target:
            if batch is None:
                raise ShapeError(
                    f"{self.name}: cannot infer the -1 of target_shape "
                    f"{describe_shape(self.target_shape)} for a symbolic input whose batch "
                    f"and sample sizes are both unknown; received shape "
                    f"{describe_shape(inputs.shape)}")
            target = tuple(-1 if d is None else d for d in target)
        return ops.reshape(inputs, (-1 if batch is None else batch, *target))

    def compute_output_shape(self, input_shape):
        return (tuple(input_shape)[0], *self._resolve(input_shape))

    def get_config(self) -> dict:
        return {**super().get_config(), "target_shape": self.target_shape}
