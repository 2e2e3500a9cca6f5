"""The initializer ``initializers.get`` makes from a tensor or a host array (Keras 3: "you
can pass a backend tensor or numpy array as the identifier to define the initializer values
directly"): it returns those values, cast to the dtype asked for."""
from __future__ import annotations

from .. import ops
from ..core.tensor import Tensor
from ..core.variable import Variable
from ..errors import ShapeError, describe_shape
from .initializer import check_dtype, check_shape


def is_values(identifier) -> bool:
    """Whether ``identifier`` is a concrete tensor or a host array (numpy array or scalar),
    as Keras accepts them; not a Variable, a callable or a Python number."""
    if isinstance(identifier, Tensor):
        return not isinstance(identifier, Variable)
    return (hasattr(identifier, "__array__") and hasattr(identifier, "shape")
            and hasattr(identifier, "dtype") and not callable(identifier))


class ValuesInitializer:
    """``(shape, dtype=None) -> values`` cast to ``dtype`` (default ``floatx()``, as Keras),
    for the ``shape`` of the values only. Like Keras's, it has no config: a layer holding
    one is saved with its weights, not with this initializer."""

    def __init__(self, values) -> None:
        self.values = values
        self.shape = tuple(int(d) for d in values.shape)

    def __call__(self, shape, dtype=None) -> Tensor:
        shape = check_shape("initializers.get", shape)
        dtype = check_dtype("initializers.get", dtype)
        if shape != self.shape:
            raise ShapeError(f"initializers.get: Expected `shape` to be "
                             f"{describe_shape(self.shape)} for a tensor given as "
                             f"initializer; received shape={describe_shape(shape)}")
        return ops.cast(ops.convert_to_tensor(self.values), dtype)

    def __repr__(self) -> str:
        return f"<ValuesInitializer shape={describe_shape(self.shape)}>"
