"""Initializers with fixed values: Zeros, Ones, Constant and Identity."""
from __future__ import annotations

import numbers

from .. import ops
from ..core.tensor import Tensor, TensorBase
from ..errors import ShapeError, describe_shape
from ..registry import register_builtin
from .initializer import Initializer, check_dtype, check_number, check_shape


@register_builtin
class Zeros(Initializer):
    """All zeros, in any dtype (default ``floatx()``)."""

    def __call__(self, shape, dtype=None) -> Tensor:
        return ops.zeros(check_shape("Zeros", shape), check_dtype("Zeros", dtype))


@register_builtin
class Ones(Initializer):
    """All ones, in any dtype (default ``floatx()``)."""

    def __call__(self, shape, dtype=None) -> Tensor:
        return ops.ones(check_shape("Ones", shape), check_dtype("Ones", dtype))


def _broadcasts_to(source: tuple, target: tuple) -> bool:
    if len(source) > len(target):
        return False
    return all(s in (1, t) for s, t in zip(reversed(source), reversed(target)))


@register_builtin
class Constant(Initializer):
    """Initializer that fills a tensor with a constant value (or given values).

    Args:
        value: A number, or an array broadcastable to the shape (the usual way to load
            pre-trained embeddings: ``Embedding(..., embeddings_initializer=
            Constant(matrix))``). Defaults to ``0.0``.

    Raises:
        TypeError: If ``value`` is neither a number nor an array.

    Example:

    >>> lamina.initializers.Constant(2.0)((2, 2)).numpy()
    array([[2., 2.],
           [2., 2.]], dtype=float32)
    """

    def __init__(self, value=0.0) -> None:
        if isinstance(value, dict) and value.get("class_name") == "__numpy__":
            value = value["config"]["value"]          # how Keras 3 stores an array value
        if isinstance(value, numbers.Real):
            self.value = value.item() if hasattr(value, "item") else value
        elif isinstance(value, (list, tuple, TensorBase)) or hasattr(value, "__array__"):
            self.value = value
        else:
            raise TypeError(f"Constant: argument 'value' must be a number or an array; "
                            f"received {value!r} of type {type(value).__name__}")

    def __call__(self, shape, dtype=None) -> Tensor:
        shape = check_shape("Constant", shape)
        dtype = check_dtype("Constant", dtype)
        if isinstance(self.value, numbers.Real):
            return ops.full(shape, self.value, dtype)
        values = ops.convert_to_tensor(self.value, dtype=dtype)
        if not _broadcasts_to(values.shape, shape):
            raise ShapeError(f"Constant: the value of shape {describe_shape(values.shape)} "
                             f"does not broadcast to the requested shape "
                             f"{describe_shape(shape)}")
        return ops.multiply(ops.ones(shape, dtype), values)   # a fresh, writable buffer

    def get_config(self) -> dict:
        value = self.value
        if isinstance(value, Tensor):
            value = value.numpy()
        if hasattr(value, "tolist"):
            value = value.tolist()
        return {"value": list(value) if isinstance(value, tuple) else value}


def _eye(rows: int, cols: int, dtype: str) -> Tensor:
    """The (rows, cols) identity matrix: ones where the row index equals the column's."""
    row = ops.reshape(ops.arange(rows), (rows, 1))
    col = ops.reshape(ops.arange(cols), (1, cols))
    return ops.cast(ops.equal(row, col), dtype)


@register_builtin
class Identity(Initializer):
    """Initializer that makes ``gain`` times the identity matrix.

    2-D shapes only; a non-square shape gets ones on its main diagonal.

    Args:
        gain: The factor applied to the identity matrix. Defaults to ``1.0``.

    Raises:
        ShapeError: When called with a shape that is not 2-D.

    Example:

    >>> lamina.initializers.Identity(gain=3.0)((2, 3)).numpy()
    array([[3., 0., 0.],
           [0., 3., 0.]], dtype=float32)
    """

    def __init__(self, gain: float = 1.0) -> None:
        self.gain = check_number("Identity", "gain", gain)

    def __call__(self, shape, dtype=None) -> Tensor:
        shape = check_shape("Identity", shape)
        dtype = check_dtype("Identity", dtype)
        if len(shape) != 2:
            raise ShapeError(f"Identity: can only initialize 2-D matrices; received shape "
                             f"{describe_shape(shape)} of rank {len(shape)}")
        eye = _eye(shape[0], shape[1], dtype)
        if self.gain == 1.0:
            return eye
        return ops.cast(ops.multiply(eye, self.gain), dtype)

    def get_config(self) -> dict:
        return {"gain": self.gain}
