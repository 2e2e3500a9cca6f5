"""Making tensors: array, copy, empty, empty_like, eye, identity, tri, linspace, logspace,
geomspace, meshgrid (Keras 3's ``keras.ops`` names, numpy's rules).

Constants (eye, tri, ...) are built with ops on the active backend. ``linspace`` and kin
accept tensors for ``start``/``stop`` and are compositions of ops, so they have gradients
with respect to them. Float results default to ``floatx()``.
"""
from __future__ import annotations

from ..dtypes import floatx, is_float, standardize
from ..errors import ShapeError
from .core import as_tensor, as_tensors, cast, convert_to_tensor, full, zeros_like
from .math import add, divide, multiply, power, sign, subtract
from .exponents import log10
from .rounding import floor
from ..core.op import Op, Spec, normalize_axis, register_op
from .reshaping import broadcast_to, expand_dims, moveaxis, reshape
from .slicing import slice_update
from .core import arange
from .compare import equal, less_equal

__all__ = ["array", "copy", "empty", "empty_like", "eye", "identity", "tri", "linspace",
           "logspace", "geomspace", "meshgrid"]


def array(x, dtype=None):
    """``x`` (nested lists, host arrays, numbers, tensors) as a tensor of ``dtype``.

    Args:
        x: Nested lists, a host array, a number or a tensor.
        dtype: The dtype of the result; None means the default for the inputs.

    Returns:
        A tensor.
    """
    return convert_to_tensor(x, dtype=dtype)


@register_op
class Copy(Op):
    """``x`` in a new buffer of its own."""
    name = "copy"
    writes_out = True

    def output_spec(self, x):
        return Spec(tuple(x.shape), x.dtype)

    def forward(self, backend, x, out=None):
        if out is None:
            out = backend.empty(x.shape, x.dtype.name)
        backend.copy_(out, x)
        return out

    def gradient(self, ctx, g):
        return (g,)


def copy(x):
    """A copy of ``x`` that later writes to ``x`` (a Variable's assign) do not change.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor equal to ``x``.
    """
    return Copy(as_tensor("copy", x))


def empty(shape, dtype=None):
    """A tensor of ``shape`` (filled with zeros: the values of an "empty" tensor are
    unspecified, and zeros make them reproducible); ``dtype`` defaults to floatx().

    Args:
        shape: The shape, a tuple of ints.
        dtype: The dtype; None means floatx().

    Returns:
        A tensor of ``shape``.
    """
    return full(_dims("empty", shape), 0, dtype or floatx())


def empty_like(x, dtype=None):
    """A tensor shaped like ``x`` (zeros; see ``empty``), of ``x``'s dtype unless given.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        dtype: The dtype of the result; None means the default for the inputs.

    Returns:
        A tensor of ``x``'s shape.
    """
    return zeros_like(x, dtype)


def _dims(op: str, shape) -> tuple:
    dims = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(not isinstance(d, int) or isinstance(d, bool) or d < 0 for d in dims):
        raise ShapeError(f"{op}: argument 'shape' must be non-negative ints; received {shape!r}")
    return dims


def _count(op: str, arg: str, value) -> int:
    if not isinstance(value, int) or isinstance(value, bool):      # Keras: TypeError
        raise TypeError(f"{op}: argument '{arg}' must be a non-negative int; received "
                        f"{value!r}")
    if value < 0:
        raise ValueError(f"{op}: argument '{arg}' must be a non-negative int; received "
                         f"{value!r}")
    return value


def _band(op: str, N, M, k, dtype, diagonal_only: bool):
    """(N, M) with ones where ``j - i == k`` (eye) or ``j - i <= k`` (tri)."""
    N = _count(op, "N", N)
    M = N if M is None else _count(op, "M", M)
    if not isinstance(k, int) or isinstance(k, bool):
        raise TypeError(f"{op}: argument 'k' must be an int; received {k!r}")
    rows = reshape(add(arange(N), k), (N, 1))
    cols = reshape(arange(M), (1, M))
    mask = equal(cols, rows) if diagonal_only else less_equal(cols, rows)
    return cast(mask, standardize(dtype) if dtype is not None else floatx())


def eye(N, M=None, k=0, dtype=None):
    """An (N, M) matrix with ones on diagonal ``k`` (above the main one for k > 0).

    Args:
        N: The number of rows.
        M: The number of columns; None means N.
        k: The diagonal: 0 the main one, > 0 above, < 0 below.
        dtype: The dtype; None means floatx().

    Returns:
        An (N, M) tensor.
    """
    return _band("eye", N, M, k, dtype, diagonal_only=True)


def identity(n, dtype=None):
    """The (n, n) identity matrix.

    Args:
        n: The number of rows and columns.
        dtype: The dtype; None means floatx().

    Returns:
        An (n, n) tensor.
    """
    return _band("identity", n, None, 0, dtype, diagonal_only=True)


def tri(N, M=None, k=0, dtype=None):
    """An (N, M) matrix with ones at and below diagonal ``k``, zeros above.

    Args:
        N: The number of rows.
        M: The number of columns; None means N.
        k: The diagonal: 0 the main one, > 0 above, < 0 below.
        dtype: The dtype; None means floatx().

    Returns:
        An (N, M) tensor.
    """
    return _band("tri", N, M, k, dtype, diagonal_only=False)


def _spaced(op: str, start, stop, num, endpoint, dtype, axis):
    """numpy's linspace: (samples, step), samples along a new ``axis``."""
    num = _count(op, "num", num)
    start, stop = as_tensors(op, start, stop)
    if not is_float(start.dtype):
        start, stop = cast(start, floatx()), cast(stop, floatx())
    if dtype is not None and is_float(standardize(dtype)):
        start, stop = cast(start, dtype), cast(stop, dtype)
    div = (num - 1) if endpoint else num
    delta = subtract(stop, start)
    step = divide(delta, div) if div > 0 else delta
    ramp = cast(arange(num), start.dtype)
    rank = max(start.ndim, stop.ndim)
    ramp = reshape(ramp, (num,) + (1,) * rank)
    samples = add(multiply(ramp, expand_dims(step, 0)), expand_dims(start, 0))
    if endpoint and num > 1:                 # the last sample is exactly `stop`
        last = expand_dims(broadcast_to(stop, tuple(samples.shape[1:])), 0)
        samples = slice_update(samples, (num - 1,) + (0,) * rank, last)
    if rank:
        samples = moveaxis(samples, 0, normalize_axis(op, axis, rank + 1))
    return samples, step


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` (included unless
    ``endpoint=False``); tensors ``start``/``stop`` give one sequence per element, along
    ``axis``. ``retstep=True`` also returns the spacing. Integer ``dtype``s floor.

    Args:
        start: The first value.
        stop: The last value.
        num: How many values. Defaults to 50.
        endpoint: Whether ``stop`` is included. Defaults to True.
        retstep: Whether to also return the spacing. Defaults to False.
        dtype: The dtype; None means floatx().
        axis: Where the new axis goes for tensor ``start``/``stop``. Defaults to 0.

    Returns:
        The ``num`` values, or ``(values, step)`` with ``retstep``.

    Example:

    >>> lamina.ops.linspace(0.0, 1.0, 3).numpy()
    array([0. , 0.5, 1. ], dtype=float32)
    """
    samples, step = _spaced("linspace", start, stop, num, endpoint, dtype, axis)
    if dtype is not None and not is_float(standardize(dtype)):
        samples = cast(floor(samples), dtype)
    return (samples, step) if retstep else samples


def logspace(start, stop, num=50, endpoint=True, base=10, dtype=None, axis=0):
    """``base ** linspace(start, stop, ...)``.

    Args:
        start: The first exponent.
        stop: The last exponent.
        num: How many values. Defaults to 50.
        endpoint: Whether ``stop`` is included. Defaults to True.
        base: The base of the powers. Defaults to 10.
        dtype: The dtype; None means floatx().
        axis: Where the new axis goes for tensor ``start``/``stop``. Defaults to 0.

    Returns:
        The ``num`` values.
    """
    samples, _ = _spaced("logspace", start, stop, num, endpoint, None, axis)
    result = power(cast(base, samples.dtype) if not isinstance(base, (int, float)) else
                   float(base), samples)
    return cast(result, dtype) if dtype is not None else result


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """``num`` values from ``start`` to ``stop`` evenly spaced on a log scale (a geometric
    sequence); both ends must be non-zero and of one sign, the ends are exact.

    Args:
        start: The first value.
        stop: The last value.
        num: How many values. Defaults to 50.
        endpoint: Whether ``stop`` is included. Defaults to True.
        dtype: The dtype; None means floatx().
        axis: Where the new axis goes for tensor ``start``/``stop``. Defaults to 0.

    Returns:
        The ``num`` values.
    """
    start, stop = as_tensors("geomspace", start, stop)
    if not is_float(start.dtype):
        start, stop = cast(start, floatx()), cast(stop, floatx())
    sgn = sign(start)
    samples, _ = _spaced("geomspace", log10(multiply(start, sgn)), log10(multiply(stop, sgn)),
                         num, endpoint, None, 0)
    samples = multiply(power(10.0, samples), expand_dims(sgn, 0))
    rank = samples.ndim - 1
    if num > 0:
        samples = slice_update(samples, (0,) * (rank + 1), expand_dims(
            broadcast_to(start, tuple(samples.shape[1:])), 0))
    if endpoint and num > 1:
        samples = slice_update(samples, (num - 1,) + (0,) * rank, expand_dims(
            broadcast_to(stop, tuple(samples.shape[1:])), 0))
    if rank:
        samples = moveaxis(samples, 0, normalize_axis("geomspace", axis, rank + 1))
    return cast(samples, dtype) if dtype is not None else samples


def meshgrid(*x, indexing="xy"):
    """Coordinate grids from 1-D tensors: with ``indexing="xy"`` the first two outputs'
    axes are swapped (Cartesian), with "ij" each output varies along its own axis.

    Args:
        *x: 1-D tensors, one per axis of the grid.
        indexing: "xy" (the default, Cartesian) or "ij" (matrix).

    Returns:
        A list of tensors, one per input, each of the grid's shape.
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: argument 'indexing' must be 'xy' or 'ij'; received "
                         f"{indexing!r}")
    xs = [reshape(as_tensor("meshgrid", v), (-1,)) for v in x]
    sizes = [v.shape[0] for v in xs]
    n = len(xs)
    out = []
    for i, v in enumerate(xs):
        shape = [1] * n
        shape[i] = sizes[i]
        full_shape = list(sizes)
        if indexing == "xy" and n > 1:
            shape[0], shape[1] = shape[1], shape[0]
            full_shape[0], full_shape[1] = full_shape[1], full_shape[0]
        out.append(broadcast_to(reshape(v, tuple(shape)), tuple(full_shape)))
    return out

