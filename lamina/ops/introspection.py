"""What a tensor is: shape, ndim, size, dtype, is_tensor (Keras 3's ``keras.ops`` names).

``shape`` of a concrete tensor is a tuple of ints. A symbolic tensor (a functional model's
input, or a tensor traced for a compiled ``fit``/``predict``, whose batch size is unknown
until a batch arrives) has unknown sizes, and ``shape`` follows Keras 3:

- on a functional-API tensor, outside any layer's ``call`` (``ops.shape(keras.Input((3,)))``),
  an unknown size is None, as Keras's ``KerasTensor.shape`` gives it, so user code's
  ``if shape[0] is None:`` takes Keras's branch;
- where code runs to be executed later — a layer's ``call`` on symbolic tensors (functional
  building), a compiled step's trace, a custom ``train_step`` — Keras's backends give a
  symbolic size (JAX's shape-polymorphic dimension, TensorFlow's ``tf.shape`` entry), never
  None; here a :class:`DynamicDim`, which says where the size will come from. Random draws,
  ``zeros``/``ones``/``full`` and ``reshape`` accept it in their ``shape``
  (``keras.random.normal(shape=(ops.shape(z)[0], dim))``, the VAE ``Sampling`` layer of the
  Keras guides): the op then takes that size from the tensor when the graph runs, so one
  graph serves every batch size, the last partial batch included.
"""
from __future__ import annotations

from ..core import mode
from ..core.layer_path import running_layer_code
from ..core.tensor import Tensor, TensorBase
from ..core.variable import Variable
from ..errors import ShapeError
from .core import as_tensor

__all__ = ["shape", "ndim", "size", "dtype", "is_tensor"]


class DynamicDim:
    """The size of axis ``axis`` of the symbolic tensor ``source``: unknown until the graph
    runs. Ops that accept it (random draws' ``shape``) read the size from ``source`` then."""
    __slots__ = ("source", "axis")

    def __init__(self, source, axis: int) -> None:
        self.source = source
        self.axis = axis

    def _unknown(self, *_):
        raise ShapeError(f"the size of axis {self.axis} of {self.source!r} is unknown until "
                         "the graph runs (a batch size); it can be a shape entry of "
                         "lamina.random draws, not a Python number")

    __index__ = __int__ = __float__ = __bool__ = _unknown
    __add__ = __radd__ = __mul__ = __rmul__ = __sub__ = __rsub__ = _unknown
    __floordiv__ = __truediv__ = __lt__ = __le__ = __gt__ = __ge__ = _unknown

    def __repr__(self) -> str:
        return f"DynamicDim(axis={self.axis})"


def shape(x) -> tuple:
    """``x``'s shape as a tuple: ints, and for each size a symbolic tensor does not know
    yet (a batch size) None on a functional-API tensor outside any layer's ``call``
    (Keras's ``KerasTensor.shape``), a :class:`DynamicDim` in code traced to run later.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tuple.
    """
    x = x if isinstance(x, TensorBase) else as_tensor("shape", x)
    dims = tuple(x.shape)
    if None not in dims or not (running_layer_code() or mode.active_trace() is not None):
        return dims
    return tuple(DynamicDim(x, i) if d is None else d for i, d in enumerate(dims))


def ndim(x) -> int:
    """The number of axes of ``x``.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        An int.
    """
    x = x if isinstance(x, TensorBase) else as_tensor("ndim", x)
    return len(x.shape)


def size(x) -> int:
    """The number of elements of ``x`` (a ShapeError for a symbolic size not known yet).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        An int.
    """
    x = x if isinstance(x, TensorBase) else as_tensor("size", x)
    if any(d is None for d in x.shape):
        raise ShapeError(f"size: the size of {x!r} is not known until the graph runs; use "
                         "lamina.ops.shape for its known sizes")
    count = 1
    for d in x.shape:
        count *= d
    return count


def dtype(x) -> str:
    """``x``'s dtype as a standard name ("float32", "int64", ...).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        The dtype name, a str.
    """
    x = x if isinstance(x, TensorBase) else as_tensor("dtype", x)
    return x.dtype


def is_tensor(x) -> bool:
    """Whether ``x`` is a concrete Lamina tensor. As in Keras 3, host arrays, Python
    numbers, Variables and symbolic tensors are not.

    Args:
        x: Any object.

    Returns:
        A bool.
    """
    return isinstance(x, Tensor) and not isinstance(x, Variable)


def resolve_dims(op_name: str, dims: tuple):
    """``dims`` with each :class:`DynamicDim` replaced by None, and a tensor of rank
    ``len(dims)`` whose shape holds those sizes at those positions (the ``like`` input of
    random ops), or None when every size is known."""
    from .reshaping import reshape     # these three use ops.shape (this module)
    from .slicing import getitem       # (a circle inside ops/)
    from .math import add              # (a circle inside ops/)
    like = None
    out = []
    for i, d in enumerate(dims):
        if not isinstance(d, DynamicDim):
            out.append(d)
            continue
        out.append(None)
        src = d.source
        key = tuple(slice(None) if a == d.axis else 0 for a in range(len(src.shape)))
        along = reshape(getitem(src, key), (1,) * i + (-1,) + (1,) * (len(dims) - i - 1))
        like = along if like is None else add(like, along)
    return tuple(out), like
