"""Tensors: the operator mixin shared by concrete and symbolic tensors, and the concrete one."""
from __future__ import annotations

from ..backend import get_backend
from ..errors import BackendError
from .mode import engines


def _no_out(method: str, out) -> None:
    """numpy's ``np.min(tensor)`` calls ``tensor.min(axis=None, out=None)`` (``np.sum`` and
    ``np.mean`` also pass ``dtype``): ``out=None`` is accepted for that; a real ``out`` is
    refused (a tensor method returns a new tensor)."""
    if out is not None:
        raise TypeError(f"Tensor.{method}: argument 'out' is not supported (the result is a "
                        f"new tensor); received out={type(out).__name__}")


class TensorBase:
    """Python operators and common methods, all routed through ``lamina.ops`` (which
    registers itself with ``core/mode``: ops is above core).

    Concrete tensors (:class:`Tensor`), variables and symbolic tensors share this, so
    ``x + 1``, ``x @ w``, ``x[:, 0]`` and ``x.T`` mean the same thing eagerly and in a trace.
    """
    __slots__ = ()
    __array_priority__ = 100      # make numpy defer to our reflected operators

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def T(self):
        return engines.ops.transpose(self)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        if self.shape[0] is None:
            raise TypeError("len() of a tensor whose first dimension is unknown")
        return self.shape[0]

    # arithmetic -----------------------------------------------------------
    def __add__(self, o):
        return engines.ops.add(self, o)

    def __radd__(self, o):
        return engines.ops.add(o, self)

    def __sub__(self, o):
        return engines.ops.subtract(self, o)

    def __rsub__(self, o):
        return engines.ops.subtract(o, self)

    def __mul__(self, o):
        return engines.ops.multiply(self, o)

    def __rmul__(self, o):
        return engines.ops.multiply(o, self)

    def __truediv__(self, o):
        return engines.ops.divide(self, o)

    def __rtruediv__(self, o):
        return engines.ops.divide(o, self)

    def __floordiv__(self, o):
        return engines.ops.floor_divide(self, o)

    def __rfloordiv__(self, o):
        return engines.ops.floor_divide(o, self)

    def __mod__(self, o):
        return engines.ops.mod(self, o)

    def __rmod__(self, o):
        return engines.ops.mod(o, self)

    def __pow__(self, o):
        return engines.ops.power(self, o)

    def __rpow__(self, o):
        return engines.ops.power(o, self)

    def __matmul__(self, o):
        return engines.ops.matmul(self, o)

    def __rmatmul__(self, o):
        return engines.ops.matmul(o, self)

    def __neg__(self):
        return engines.ops.negative(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return engines.ops.abs(self)

    # comparisons (elementwise, as in Keras; hashing stays by identity) ----
    def __eq__(self, o):
        return engines.ops.equal(self, o)

    def __ne__(self, o):
        return engines.ops.not_equal(self, o)

    def __lt__(self, o):
        return engines.ops.less(self, o)

    def __le__(self, o):
        return engines.ops.less_equal(self, o)

    def __gt__(self, o):
        return engines.ops.greater(self, o)

    def __ge__(self, o):
        return engines.ops.greater_equal(self, o)

    def __and__(self, o):
        return engines.ops.logical_and(self, o)

    def __rand__(self, o):
        return engines.ops.logical_and(o, self)

    def __or__(self, o):
        return engines.ops.logical_or(self, o)

    def __ror__(self, o):
        return engines.ops.logical_or(o, self)

    def __xor__(self, o):
        return engines.ops.logical_xor(self, o)

    def __rxor__(self, o):
        return engines.ops.logical_xor(o, self)

    def __invert__(self):
        return engines.ops.logical_not(self)

    __hash__ = object.__hash__

    # indexing and methods ---------------------------------------------------
    def __getitem__(self, key):
        return engines.ops.getitem(self, key)

    def reshape(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return engines.ops.reshape(self, shape)

    def transpose(self, *axes):
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        return engines.ops.transpose(self, axes or None)

    def astype(self, dtype):
        return engines.ops.cast(self, dtype)

    def sum(self, axis=None, keepdims=False, out=None, dtype=None):
        _no_out("sum", out)
        x = self if dtype is None else engines.ops.cast(self, dtype)   # numpy's accumulator
        return engines.ops.sum(x, axis=axis, keepdims=keepdims)

    def mean(self, axis=None, keepdims=False, out=None, dtype=None):
        _no_out("mean", out)
        x = self if dtype is None else engines.ops.cast(self, dtype)   # numpy's accumulator
        return engines.ops.mean(x, axis=axis, keepdims=keepdims)

    def max(self, axis=None, keepdims=False, out=None):
        _no_out("max", out)
        return engines.ops.max(self, axis=axis, keepdims=keepdims)

    def min(self, axis=None, keepdims=False, out=None):
        _no_out("min", out)
        return engines.ops.min(self, axis=axis, keepdims=keepdims)

    def argmax(self, axis=None):
        return engines.ops.argmax(self, axis=axis)

    def exp(self):
        return engines.ops.exp(self)

    def log(self):
        return engines.ops.log(self)

    def sqrt(self):
        return engines.ops.sqrt(self)

    def square(self):
        return engines.ops.square(self)

    def abs(self):
        return engines.ops.abs(self)


_DTYPE_NAMES: dict = {}


class Tensor(TensorBase):
    """A concrete tensor: a backend array plus the backend it lives on.

    Create one with ``lamina.ops.convert_to_tensor(data)``. ``.numpy()`` copies it to the
    host. Tensors are immutable; :class:`~lamina.core.variable.Variable` holds state.

    A tensor read from a Variable (``convert_to_tensor(v)``, ``reshape(v)``, ``v[0]``, ...)
    may share the variable's buffer: ``_owner`` is then that variable, which copies the
    tensor's data away before its next in-place write (copy-on-write), so the tensor keeps
    the value it had when it was made. ``_owner`` is None for every other tensor.
    """
    __slots__ = ("data", "backend", "_owner", "_keras_mask", "__weakref__")

    def __init__(self, data, dtype=None, backend=None):
        t = engines.ops.core.to_backend_tensor(data, dtype=dtype, backend=backend)
        self.data = t.data if t._owner is None else t.data.copy()
        self.backend = t.backend
        self._owner = None

    @classmethod
    def _wrap(cls, data, backend) -> "Tensor":
        """Wrap a backend array without checks or copies (the hot path)."""
        t = object.__new__(cls)
        t.data = data
        t.backend = backend
        t._owner = None
        return t

    @property
    def shape(self) -> tuple:
        return self.data.shape

    @property
    def dtype(self) -> str:
        # numpy's dtype.name is computed in Python on every access; cache it per dtype.
        d = self.data.dtype
        name = _DTYPE_NAMES.get(d)
        if name is None:
            name = _DTYPE_NAMES[d] = d.name
        return name

    @property
    def size(self) -> int:
        return int(self.data.size)

    @property
    def device(self) -> str:
        return self.backend.device

    def numpy(self):
        """A host numpy array with this tensor's value (a copy on GPU backends, and where
        the tensor still shares a Variable's buffer)."""
        host = self.backend.to_host(self.data)
        if self._owner is not None and (host is self.data or host.base is not None):
            host = host.copy()
        return host

    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def item(self):
        return self.numpy().item()

    def tolist(self):
        return self.numpy().tolist()

    def __bool__(self) -> bool:
        if self.size != 1:
            raise ValueError(f"the truth value of a tensor of shape {self.shape} is ambiguous; "
                             "use lamina.ops.any() or lamina.ops.all()")
        return bool(self.item())

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if not self.dtype.startswith(("int", "uint")) or self.size != 1:
            raise TypeError(f"only integer scalar tensors can be used as an index; "
                            f"received dtype {self.dtype}, shape {self.shape}")
        return int(self.item())

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def to(self, backend) -> "Tensor":
        """An explicit copy of this tensor onto another backend ("numpy" or "cupy")."""
        target = get_backend(backend)
        if target is self.backend:
            return self
        return Tensor._wrap(target.asarray(self.backend.to_host(self.data)), target)

    def __repr__(self) -> str:
        body = repr(self.numpy()).replace("array(", "").rstrip(")")
        if ", dtype=" in body:
            body = body.split(", dtype=")[0]
        return f"<Tensor shape={self.shape} dtype={self.dtype} backend={self.backend.name}\n{body}>"

    def __reduce__(self):
        return (_rebuild_tensor, (self.numpy(), self.backend.name))


def _rebuild_tensor(array, backend_name):
    backend = get_backend(backend_name)
    return Tensor._wrap(backend.asarray(array), backend)


def same_backend(op_name: str, tensors) -> object:
    """The one backend shared by ``tensors``; mixing devices is an error, never a silent copy."""
    backend = None
    for t in tensors:
        b = t.backend
        if backend is None:
            backend = b
        elif b is not backend:
            raise BackendError(
                f"{op_name}: inputs live on different backends ({backend.name} and {b.name}); "
                "move one explicitly with tensor.to(name)")
    return backend
