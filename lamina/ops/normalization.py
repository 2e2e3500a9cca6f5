"""Normalization as Keras 3's ``keras.ops`` / ``keras.ops.nn`` functions: ``moments``,
``batch_normalization``, ``layer_normalization``, ``rms_normalization`` and ``normalize``.
Compositions of primitives, so gradients and graph mode come with them.

The layer and RMS normalizations return ``x``'s dtype, as Keras does, even for integer
input (whose result is truncated: Keras's ``layer_normalization([[1, 2, 3]])`` is
``[[-1, 0, 1]]``).

As in Keras, float16 statistics are computed in float32 (``moments`` clips them to float16's
range before casting back), the layer/RMS normalizations run in at least float32 and return
the input's dtype, and ``epsilon=None`` means ``lamina.backend.epsilon()`` (1e-7).
"""
from __future__ import annotations

import warnings

from ..settings import epsilon
from ..dtypes import floatx, is_float
from ..errors import ShapeError, describe_shape
from .core import as_tensor, cast
from .math import (abs as abs_, add, divide, maximum, minimum, multiply, negative, power,
                   rsqrt, square)
from .where_clip import clip
from ..core.op import broadcast_shapes, normalize_axes, normalize_axis
from .refused import refused
from .reduction import mean, sum as reduce_sum, var
from .reshaping import reshape, squeeze

__all__ = ["moments", "batch_normalization", "layer_normalization", "rms_normalization",
           "normalize"]

_FLOAT16_MAX = 65504.0


def _epsilon(value):
    if value is None:
        return epsilon()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"argument 'epsilon' must be a number or None; received {value!r}")
    return float(value)


def _at_least_float32(op_name: str, x):
    """``x`` in float32 or float64 to compute with, and the dtype to return (``x``'s own:
    Keras casts the result back, even to an integer dtype)."""
    x = as_tensor(op_name, x)
    dtype = x.dtype
    compute = "float64" if x.dtype == "float64" else "float32"
    return (x if x.dtype == compute else cast(x, compute)), dtype


def moments(x, axes, keepdims=False, synchronized=False):
    """The mean and (population) variance of ``x`` over ``axes``, as a pair. float16
    input is reduced in float32. ``synchronized`` (a TensorFlow distribution option) must
    be False: Lamina runs on one device.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axes: The axis (int) or axes to reduce over.
        keepdims: If True, the reduced axes stay with size 1. Defaults to False.
        synchronized: Must be False: Lamina runs on one device.

    Returns:
        A pair ``(mean, variance)``.

    Raises:
        NotImplementedError: If ``synchronized`` is True.
    """
    if synchronized:
        raise NotImplementedError("moments: synchronized=True (statistics across devices) "
                                  "is not supported; Lamina runs on one device")
    x = as_tensor("moments", x)
    dtype = x.dtype if is_float(x.dtype) else floatx()
    work = cast(x, "float32") if x.dtype == "float16" or not is_float(x.dtype) else x
    axes = normalize_axes("moments", axes, work.ndim)
    m = mean(work, axis=axes, keepdims=True)
    v = var(work, axis=axes, keepdims=True)
    if not keepdims:
        squeezed = tuple(range(work.ndim)) if axes is None else axes
        m, v = squeeze(m, axis=squeezed), squeeze(v, axis=squeezed)
    if dtype == "float16":
        m = cast(clip(m, -_FLOAT16_MAX, _FLOAT16_MAX), "float16")
        v = cast(clip(v, -_FLOAT16_MAX, _FLOAT16_MAX), "float16")
    elif m.dtype != dtype:
        m, v = cast(m, dtype), cast(v, dtype)
    return m, v


def batch_normalization(x, mean, variance, axis, offset=None, scale=None, epsilon=0.001):
    """``(x - mean) / sqrt(variance + epsilon) * scale + offset`` with the vectors
    ``mean``, ``variance``, ``offset`` and ``scale`` (each of length ``x.shape[axis]``)
    along ``axis``.

    Args:
        x: Input tensor (integers are cast to floatx()).
        mean: The mean, a vector of length ``x.shape[axis]``.
        variance: The variance, a vector of length ``x.shape[axis]``.
        axis: The axis of ``x`` the vectors run along (the features axis).
        offset: The vector added after scaling (beta); None adds nothing.
        scale: The vector multiplied after normalizing (gamma); None multiplies by 1.
        epsilon: Small float added to ``variance`` to avoid dividing by zero. Defaults to
            1e-3.

    Returns:
        The normalized tensor, of ``x``'s shape.

    Raises:
        ShapeError: If a vector's length is not ``x.shape[axis]``.
    """
    x = as_tensor("batch_normalization", x)
    if not is_float(x.dtype):
        x = cast(x, floatx())
    axis = normalize_axis("batch_normalization", axis, x.ndim)
    size = x.shape[axis]
    shape = [1] * x.ndim
    shape[axis] = -1

    def vector(arg, v):
        v = as_tensor("batch_normalization", v)
        if tuple(v.shape) != (size,):
            raise ShapeError(f"batch_normalization: argument `{arg}` must be a vector of "
                             f"length x.shape[axis] = {size}; received shape "
                             f"{describe_shape(v.shape)}")
        v = v if v.dtype == x.dtype else cast(v, x.dtype)
        return reshape(v, tuple(shape))
    inv = rsqrt(add(vector("variance", variance), _epsilon(epsilon)))
    if scale is not None:
        inv = multiply(inv, vector("scale", scale))
    shift = negative(multiply(vector("mean", mean), inv))
    if offset is not None:
        shift = add(shift, vector("offset", offset))
    return add(multiply(x, inv), shift)


def _broadcast_params(x, axes, v):
    """A scale/offset over the normalized ``axes`` reshaped to broadcast against ``x``."""
    if v is None:
        return None
    v = as_tensor("layer_normalization", v)
    v = v if v.dtype == x.dtype else cast(v, x.dtype)
    if v.ndim != x.ndim and axes != (x.ndim - 1,):
        shape = [1] * x.ndim
        for a in axes:
            shape[a] = x.shape[a]
        v = reshape(v, tuple(shape))
    return v


def layer_normalization(x, gamma=None, beta=None, axis=-1, epsilon=None, **kwargs):
    """``(x - mean) / sqrt(var + epsilon) * gamma + beta`` with the statistics over
    ``axis`` (an int or a sequence), computed in at least float32; the result has ``x``'s
    dtype. Keras's deprecated ``rms_scaling=True`` (scales by the variance, not the root
    mean square) is honoured with its warning.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        gamma: Optional scale multiplied after normalizing; broadcasts along ``axis``.
        beta: Optional offset added after scaling; broadcasts along ``axis``.
        axis: The axis (int) or axes the statistics are taken over. Defaults to -1.
        epsilon: Small float added to the variance; None means ``keras.config.epsilon()``.
        **kwargs: Only ``rms_scaling`` (Keras's deprecated option, honoured with a warning).

    Returns:
        The normalized tensor, of ``x``'s shape and dtype.

    Raises:
        TypeError: For any other keyword argument.
    """
    rms_scaling = kwargs.pop("rms_scaling", False)
    if kwargs:
        raise TypeError(f"layer_normalization: unexpected keyword arguments "
                        f"{sorted(kwargs)}")
    if rms_scaling:
        warnings.warn("layer_normalization: You passed `rms_scaling=True`, which is "
                      "deprecated: it scales the input by the variance, not the root mean "
                      "square; use lamina.ops.rms_normalization instead", UserWarning,
                      stacklevel=2)
    x, dtype = _at_least_float32("layer_normalization", x)
    eps = _epsilon(epsilon)
    axes = normalize_axes("layer_normalization", (axis,) if isinstance(axis, int) else axis,
                          x.ndim)
    gamma = _broadcast_params(x, axes, gamma)
    beta = _broadcast_params(x, axes, beta)
    for name, v in (("gamma", gamma), ("beta", beta)):
        try:
            if v is not None:
                broadcast_shapes("layer_normalization", x.shape, v.shape, args=("x", name))
        except ShapeError as error:    # Keras's symbolic rule: x's shape; refused if run
            return refused(ShapeError, str(error), (x, gamma, beta), (x.shape, dtype))
    if rms_scaling:
        out = multiply(x, rsqrt(add(var(x, axis=axes, keepdims=True), eps)))
        if gamma is not None:
            out = multiply(out, gamma)
    else:
        m, v = moments(x, axes, keepdims=True)
        inv = rsqrt(add(v, eps))
        if gamma is not None:
            inv = multiply(inv, gamma)
        shift = negative(multiply(m, inv))
        if beta is not None:
            shift = add(shift, beta)
        out = add(multiply(x, inv), shift)
    return out if out.dtype == dtype else cast(out, dtype)


def rms_normalization(x, scale=None, axis=-1, epsilon=None):
    """``x / sqrt(mean(x**2) + epsilon) * scale`` over ``axis``, computed in at least
    float32; the result has ``x``'s dtype.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        scale: Optional scale multiplied after normalizing; broadcasts along ``axis``.
        axis: The axis (int) or axes the root mean square is taken over. Defaults to -1.
        epsilon: Small float added to the mean square; None means
            ``keras.config.epsilon()``.

    Returns:
        The normalized tensor, of ``x``'s shape and dtype.
    """
    x, dtype = _at_least_float32("rms_normalization", x)
    if x.ndim == 0:
        x = reshape(x, (1,))
    eps = _epsilon(epsilon)
    axes = normalize_axes("rms_normalization", (axis,) if isinstance(axis, int) else axis,
                          x.ndim)
    out = multiply(x, rsqrt(add(mean(square(x), axis=axes, keepdims=True), eps)))
    if scale is not None:
        scale = as_tensor("rms_normalization", scale)
        out = multiply(out, scale if scale.dtype == out.dtype else cast(scale, out.dtype))
    return out if out.dtype == dtype else cast(out, dtype)


def normalize(x, axis=-1, order=2, epsilon=None):
    """``x / max(norm(x, order), epsilon)`` over ``axis`` (for ``order=2``,
    ``x * min(rsqrt(sum(x**2)), 1 / epsilon)``, as Keras computes it). ``order`` is an
    int >= 1; integer input gives floatx().

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis (int) or axes the norm is taken over. Defaults to -1.
        order: The order of the norm, an int >= 1. Defaults to 2.
        epsilon: The smallest norm divided by; None means ``keras.config.epsilon()``.

    Returns:
        ``x`` divided by its norm, of ``x``'s shape.

    Raises:
        ValueError: If ``order`` is not an int >= 1.

    Example:

    >>> lamina.ops.normalize(np.array([3.0, 4.0])).numpy()
    array([0.6, 0.8])
    """
    if isinstance(order, bool) or not isinstance(order, int) or order < 1:
        raise ValueError(f"normalize: Argument `order` must be an int >= 1; received "
                         f"{order!r}")
    x = as_tensor("normalize", x)
    if not is_float(x.dtype):
        x = cast(x, floatx())
    if x.ndim == 0:
        x = reshape(x, (1,))
    eps = _epsilon(epsilon)
    axes = normalize_axes("normalize", axis, x.ndim)
    if order == 2:
        inv = rsqrt(reduce_sum(square(x), axis=axes, keepdims=True))
        return multiply(x, minimum(inv, 1.0 / eps))
    if order == 1:
        norm = reduce_sum(abs_(x), axis=axes, keepdims=True)
    else:
        norm = power(reduce_sum(power(abs_(x), order), axis=axes, keepdims=True), 1.0 / order)
    return divide(x, maximum(norm, eps))
