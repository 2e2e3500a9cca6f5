"""Getting values into tensors: conversion, implicit promotion, cast, constants.

Python ints and floats are *weakly typed* (as in Keras 3 and JAX): ``x * 2.0`` keeps ``x``'s
dtype; a Python complex is complex64 and a Python bool is bool (Keras's lattice,
``lamina/dtype_lattice.py``).
Host arrays keep their dtype; Python float data becomes ``floatx()`` ("float32").
"""
from __future__ import annotations

import warnings

from ..core.tensor import Tensor, TensorBase
from ..core.variable import Variable
from ..backend import get_backend
from ..dtypes import floatx, is_complex, is_float, standardize
from ..dtype_lattice import result_type
from ..errors import ArgumentTypeError, BackendError, DTypeError, ShapeError
from ..registry import register_tensor_type
from ..core import mode as _mode
from ..core.op import Op, Spec, register_op

_SCALARS = (bool, int, float, complex)


def _infer_host_dtype(data) -> str:
    dtype = getattr(data, "dtype", None)
    if dtype is not None:
        return standardize(dtype)
    kinds = set()
    stack = [data]
    while stack:                    # every leaf counts: [0, 0.5] is float, not int
        leaf = stack.pop()
        if isinstance(leaf, (list, tuple)):
            stack.extend(leaf)
        elif isinstance(leaf, TensorBase):
            kinds.add(leaf.dtype)
        elif isinstance(leaf, bool):
            kinds.add("bool")
        elif isinstance(leaf, int):
            kinds.add("int32")
        elif isinstance(leaf, complex):
            kinds.add("complex64")          # Keras's dtype of Python's complex
        else:
            kinds.add(floatx())
    if not kinds:
        return floatx()
    if len(kinds) == 1:
        return kinds.pop()
    return result_type(*kinds)


def convert_to_tensor(x, dtype=None, sparse=None, ragged=None) -> Tensor:
    """Keras's ``keras.ops.convert_to_tensor``: data of any kind -> a dense Tensor on the
    active backend (host data is copied to the device here, explicitly). Lamina tensors
    are dense: ``sparse=True`` and ``ragged=True`` are refused.

    Args:
        x: Data: a tensor, host array, number or nested lists.
        dtype: The dtype; None infers it.
        sparse: Must be None or False (Lamina tensors are dense).
        ragged: Must be None or False (Lamina tensors are dense).

    Returns:
        A dense tensor.

    Raises:
        ValueError: If ``sparse`` or ``ragged`` is True.
    """
    for arg, value in (("sparse", sparse), ("ragged", ragged)):
        if value:
            raise ValueError(f"convert_to_tensor: {arg}=True is not supported; Lamina "
                             f"tensors are dense (received {arg}={value!r})")
    return to_backend_tensor(x, dtype=dtype)


# Configs hold tensors as "__tensor__" values (their host array); the registry knows no
# tensor type, so it is told here how to write one and read it back.
register_tensor_type(Tensor, lambda tensor: tensor.numpy(), convert_to_tensor)


def to_backend_tensor(x, dtype=None, backend=None) -> Tensor:
    """``convert_to_tensor`` onto a named backend: ``backend`` ("numpy"/"cupy" or a
    Backend) defaults to the active one. Lamina's internal conversion."""
    if isinstance(x, TensorBase):
        if backend is not None and not isinstance(x, Tensor):
            raise BackendError("convert_to_tensor: a symbolic tensor has no value to move")
        if backend is not None and get_backend(backend) is not x.backend:
            x = x.to(backend)
        if dtype is not None and standardize(dtype) != x.dtype:
            return cast(x, dtype)
        return unchanged(x)
    target = get_backend(backend)
    if isinstance(x, (list, tuple)) and any(isinstance(v, TensorBase) for v in x):
        from .reshaping import stack     # every ops module builds on core.py, reshaping too
        return to_backend_tensor(stack([to_backend_tensor(v, backend=backend) for v in x]),
                                 dtype=dtype)
    dtype = standardize(dtype) if dtype is not None else _infer_host_dtype(x)
    if not target.is_array(x) and type(x).__module__.split(".")[0] == "cupy":
        x = x.get()                  # an explicit conversion of a device array to the host
    return Tensor._wrap(target.asarray(x, dtype=dtype), target)


def convert_to_numpy(x):
    """Keras's ``keras.ops.convert_to_numpy``: a host numpy array.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A numpy array.
    """
    if isinstance(x, Tensor):
        return x.numpy()
    if isinstance(x, TensorBase) and getattr(x, "is_symbolic_tensor", False):
        raise ArgumentTypeError(f"convert_to_numpy: argument 'x' is a symbolic tensor "
                                f"(shape {x.shape}, {x.dtype}): a placeholder for a shape and "
                                f"a dtype, with no value to convert")
    return convert_to_tensor(x).numpy()


def as_tensors(op_name: str, *xs) -> list:
    """Turn an op's arguments into tensors of one backend and one (promoted) dtype.

    The first tensor among them fixes the backend; Python scalars take its dtype (a float
    scalar meeting an integer tensor makes the result float). Host arrays next to a GPU
    tensor are an error: copies between devices are explicit.
    """
    autocast = _mode.current("autocast")     # mixed precision: variables in compute dtype
    if autocast is not None:
        xs = autocast.cast_inputs(None, xs)
    if len(xs) == 2:
        a, b = xs
        if isinstance(a, TensorBase) and isinstance(b, TensorBase) and a.dtype == b.dtype:
            return [a, b]            # the common case, without the general machinery
    ref = None
    for x in xs:
        if isinstance(x, TensorBase):
            ref = x
            break
    if ref is None:
        return as_tensors(op_name, convert_to_tensor(xs[0]), *xs[1:])
    backend = ref.backend if isinstance(ref, Tensor) else get_backend()
    kinds = []                   # Python scalars are weak types: Keras's lattice rule
    for x in xs:
        if isinstance(x, TensorBase):
            kinds.append(x.dtype)
        elif isinstance(x, _SCALARS):
            kinds.append(type(x) if type(x) in _SCALARS else
                         next(t for t in _SCALARS if isinstance(x, t)))
        else:
            if hasattr(x, "dtype") and not backend.is_array(x):
                raise BackendError(f"{op_name}: a host array was mixed with a tensor on the "
                                   f"{backend.name} backend; convert it explicitly with "
                                   "lamina.ops.convert_to_tensor")
            kinds.append(_infer_host_dtype(x))
    dtype = result_type(*kinds)
    out = []
    for x in xs:
        if isinstance(x, TensorBase):
            out.append(x if x.dtype == dtype else cast(x, dtype))
        else:
            out.append(Tensor._wrap(backend.asarray(x, dtype=dtype), backend))
    return out


def as_tensor(op_name: str, x) -> TensorBase:
    """One argument -> a tensor (on the active backend if it is host data)."""
    autocast = _mode.current("autocast")     # mixed precision: variables in compute dtype
    if autocast is not None:
        x, = autocast.cast_inputs(None, (x,))
    return x if isinstance(x, TensorBase) else convert_to_tensor(x)


def require_float(op_name: str, arg: str, x) -> None:
    if not is_float(x.dtype):
        raise DTypeError(f"{op_name}: argument '{arg}' must be a floating-point tensor; "
                         f"received dtype {x.dtype}")


# --------------------------------------------------------------------------- primitives
@register_op
class Cast(Op):
    name = "cast"
    writes_out = True

    def output_spec(self, x, dtype):
        return Spec(x.shape, dtype)

    def forward(self, backend, x, out=None, dtype=None):
        return backend.cast(x, dtype, out=out)

    def gradient(self, ctx, g):
        x = ctx.inputs[0]
        if not is_float(x.dtype) and not is_complex(x.dtype):
            return (None,)
        # a complex cotangent of a float input keeps its real part (JAX's transpose)
        return (g if g.dtype == x.dtype else Cast(g, dtype=x.dtype),)


def cast(x, dtype) -> TensorBase:
    """``x`` converted to ``dtype``; gradients flow back between float (and complex)
    dtypes. A complex tensor cast to a real dtype keeps its real part, with a warning (as
    JAX's ComplexWarning).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        dtype: The target dtype (a name such as "float32").

    Returns:
        A tensor of ``x``'s shape and dtype ``dtype``.

    Example:

    >>> lamina.ops.cast(np.array([1.7, -2.2]), "int32").numpy()
    array([ 1, -2], dtype=int32)
    """
    x = as_tensor("cast", x)
    dtype = standardize(dtype)
    if x.dtype == dtype:
        return unchanged(x)
    if is_complex(x.dtype) and not is_complex(dtype):
        warnings.warn(f"cast: casting {x.dtype} to {dtype} discards the imaginary part",
                      stacklevel=2)
    return Cast(x, dtype=dtype)


@register_op
class ReadValue(Op):
    """A Variable's current value as a tensor (TensorFlow's ReadVariableOp). It shares the
    variable's buffer, without a copy, until the variable's next in-place write copies it
    away (see ``lamina/autograd/variable.py``): the result is a snapshot."""
    name = "read_value"

    def output_spec(self, x):
        return Spec(x.shape, x.dtype)

    def forward(self, backend, x, out=None):
        return x

    def gradient(self, ctx, g):
        return (g,)


def read_value(variable) -> TensorBase:
    """``variable``'s value now, as a tensor that later assigns do not change."""
    return ReadValue(variable)


def unchanged(x) -> TensorBase:
    """What an op returns when it leaves its input ``x`` as it is (a reshape to the same
    shape, a cast to the same dtype, ...): ``x`` itself, except that a Variable becomes a
    read of its value now: eagerly a snapshot, while tracing the variable's symbolic value
    at this point of the trace (so a later ``assign`` does not change it)."""
    if type(x) is Variable:
        return ReadValue(x)
    return x


@register_op
class StopGradient(Op):
    name = "stop_gradient"
    differentiable = False

    def output_spec(self, x):
        return Spec(x.shape, x.dtype)

    def forward(self, backend, x, out=None):
        return x


def stop_gradient(variable) -> TensorBase:
    """``variable`` (any tensor) unchanged, but no gradient flows back through it.

    Args:
        variable: Input tensor.

    Returns:
        A tensor equal to ``variable``.
    """
    return StopGradient(as_tensor("stop_gradient", variable))


@register_op
class Fill(Op):
    """A tensor of ``value`` shaped and typed like ``x`` (zeros_like/ones_like/full_like)."""
    name = "fill_like"
    differentiable = False
    writes_out = True

    def output_spec(self, x, value, dtype):
        return Spec(x.shape, dtype or x.dtype)

    def forward(self, backend, x, out=None, value=0, dtype=None):
        return backend.full(x.shape, value, dtype or x.dtype.name, out=out)


def full_like(x, fill_value, dtype=None) -> TensorBase:
    """A tensor of ``x``'s shape filled with ``fill_value``.

    Args:
        x: the tensor whose shape (and, by default, dtype) to take.
        fill_value: the value of every entry.
        dtype: the result's dtype (default: ``x``'s).

    Returns:
        A tensor.
    """
    x = as_tensor("full_like", x)
    return Fill(x, value=fill_value, dtype=standardize(dtype) if dtype else None)


def zeros_like(x, dtype=None) -> TensorBase:
    """A tensor of zeros of ``x``'s shape.

    Args:
        x: the tensor whose shape (and, by default, dtype) to take.
        dtype: the result's dtype (default: ``x``'s).

    Returns:
        A tensor.
    """
    return full_like(x, 0, dtype)


def ones_like(x, dtype=None) -> TensorBase:
    """A tensor of ones of ``x``'s shape.

    Args:
        x: the tensor whose shape (and, by default, dtype) to take.
        dtype: the result's dtype (default: ``x``'s).

    Returns:
        A tensor.
    """
    return full_like(x, 1, dtype)


def zeros(shape, dtype=None) -> Tensor:
    """A tensor of zeros.

    Args:
        shape: the shape, a tuple of ints.
        dtype: the dtype (default: ``floatx()``, float32).

    Returns:
        A tensor.

    Example:

    >>> lamina.ops.zeros((2, 3))
    """
    return _full("zeros", shape, 0, dtype)


def ones(shape, dtype=None) -> Tensor:
    """A tensor of ones.

    Args:
        shape: the shape, a tuple of ints.
        dtype: the dtype (default: ``floatx()``, float32).

    Returns:
        A tensor.
    """
    return _full("ones", shape, 1, dtype)


def full(shape, fill_value, dtype=None) -> Tensor:
    """A tensor of ``shape`` filled with ``fill_value``. A size that ``lamina.ops.shape``
    gave for a symbolic tensor (a DynamicDim: a batch size) is read when the graph runs.

    Args:
        shape: The shape, a tuple of ints.
        fill_value: The value (a number or a tensor broadcasting to ``shape``).
        dtype: The dtype; None means floatx().

    Returns:
        A tensor of ``shape``.
    """
    return _full("full", shape, fill_value, dtype)


def _full(op_name: str, shape, fill_value, dtype) -> Tensor:
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(d is None for d in shape):
        raise ShapeError(f"{op_name}: argument 'shape' holds None (an unknown size, as "
                         f"ops.shape gives it on a functional-API tensor); received "
                         f"{shape!r}. Make the tensor inside a layer's call (a Lambda "
                         "layer), where ops.shape gives a size read when the graph runs")
    from .introspection import DynamicDim, resolve_dims   # introspection builds on core.py
    if any(isinstance(d, DynamicDim) for d in shape):
        dims, like = resolve_dims("full", shape)
        backend = get_backend()
        known = Tensor._wrap(backend.full(tuple(1 if d is None else d for d in dims), 0,
                                          "bool"), backend)
        from .math import add        # math.py builds on core.py
        probe = add(cast(known, like.dtype), like)         # the shape of the result
        return Fill(probe, value=fill_value, dtype=standardize(dtype))
    backend = get_backend()
    return Tensor._wrap(backend.full(shape, fill_value, standardize(dtype)), backend)


def arange(start, stop=None, step=None, dtype=None) -> Tensor:
    """Evenly spaced values in [start, stop) (numpy's rule); ``step`` defaults to 1. Ints
    give int32, anything else floatx() unless ``dtype`` is given.

    Args:
        start: The first value (or the stop when ``stop`` is None, starting from 0).
        stop: The end, excluded.
        step: The spacing. Defaults to 1.
        dtype: The dtype; None infers it (int32 for ints, else floatx()).

    Returns:
        A 1-D tensor.

    Raises:
        ArgumentTypeError: If ``start``, ``stop`` or ``step`` is None or a string (Keras
            raises ValueError; numpy would read ``arange(None)`` as an empty range).

    Example:

    >>> lamina.ops.arange(1, 7, 2).numpy()
    array([1, 3, 5], dtype=int32)
    """
    if step is None:
        step = 1
    if stop is None:
        start, stop = 0, start
    for name, value in (("start", start), ("stop", stop), ("step", step)):
        if value is None or isinstance(value, (str, bytes)):
            # numpy would read a None stop as an empty range; Keras raises ValueError
            raise ArgumentTypeError(f"arange: argument '{name}' must be a number; "
                                    f"received {name}={value!r}")
    if dtype is None:
        dtype = "int32" if all(isinstance(v, int) for v in (start, stop, step)) else floatx()
    backend = get_backend()
    return Tensor._wrap(backend.arange(start, stop, step, standardize(dtype)), backend)
