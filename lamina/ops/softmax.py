"""softmax and log_softmax over an axis (or axes), numerically stable.

Both are primitives: the forward is five kernel calls on arrays shifted by their maximum
(so ``[1000, 1001, 1002]`` and all ``-1000`` rows are exact, with no overflow), writing in
place into one buffer, and the tape records one op instead of six. Their gradients are
written with ops on the saved output, so they can be differentiated again:
``softmax``: ``y * (g - sum(g * y))``; ``log_softmax``: ``g - exp(y) * sum(g)``.
"""
from __future__ import annotations

import warnings

from ..dtypes import floatx, is_float
from ..errors import describe_shape
from .core import as_tensor, cast, require_float
from .math import exp, multiply, subtract
from ..core.op import Op, Spec, normalize_axes, register_op
from .reduction import sum as reduce_sum

__all__ = ["softmax", "log_softmax"]


def _shifted(backend, x, axis, out=None):
    """``x - max(x, axis)`` in a new buffer (or ``out``): every exponent is <= 0, so nothing
    overflows."""
    return backend.binary("subtract", x, backend.reduce("max", x, axis, True), out=out)


class _SoftmaxBase(Op):
    writes_out = True

    def output_spec(self, x, axis):
        require_float(self.name, "x", x)
        return Spec(x.shape, x.dtype)


@register_op
class Softmax(_SoftmaxBase):
    name = "softmax"

    def forward(self, backend, x, out=None, axis=(-1,)):
        shifted = _shifted(backend, x, axis, out)
        if out is None and backend.is_array(shifted):
            out = shifted            # a fresh buffer (numpy gives 0-d results as scalars)
        e = backend.unary("exp", shifted, out=out)
        total = backend.reduce("sum", e, axis, True)
        return backend.binary("divide", e, total, out=out)

    def gradient(self, ctx, g):
        y = ctx.outputs[0]
        gy = multiply(g, y)
        return (subtract(gy, multiply(y, reduce_sum(gy, axis=ctx.attrs["axis"],
                                                    keepdims=True))),)


@register_op
class LogSoftmax(_SoftmaxBase):
    name = "log_softmax"

    def forward(self, backend, x, out=None, axis=(-1,)):
        shifted = _shifted(backend, x, axis, out)
        e = backend.unary("exp", shifted)
        log_total = backend.unary("log", backend.reduce("sum", e, axis, True))
        return backend.binary("subtract", shifted, log_total, out=out)

    def gradient(self, ctx, g):
        y = ctx.outputs[0]
        axis = ctx.attrs["axis"]
        return (subtract(g, multiply(exp(y), reduce_sum(g, axis=axis, keepdims=True))),)


def _prepare(name: str, x, axis):
    x = as_tensor(name, x)
    if not is_float(x.dtype):
        x = cast(x, floatx())
    axes = normalize_axes(name, axis, x.ndim)
    return x, (tuple(range(x.ndim)) if axes is None else axes)


def softmax(x, axis=-1):
    """Softmax activation: ``exp(x) / sum(exp(x), axis)``.

    Computed stably; the values along ``axis`` are positive and sum to 1. Over an int
    axis of size 1 (where it is always 1) it warns, as Keras does.

    Args:
        x: The input tensor (or array).
        axis: The axis (an int or a tuple of ints) to normalize over. Defaults to -1.

    Returns:
        A tensor of the shape of ``x``.

    Example:

    >>> x = np.array([-2.0, -0.5, 0.5, 2.0])
    >>> np.round(lamina.activations.softmax(x).numpy(), 4)
    array([0.0138, 0.062 , 0.1686, 0.7556])
    """
    x, axes = _prepare("softmax", x, axis)
    if isinstance(axis, int) and x.shape[axes[0]] == 1:
        warnings.warn(f"softmax: You are using a softmax over axis {axis} of a tensor of "
                      f"shape {describe_shape(x.shape)}. This axis has size 1. The softmax "
                      f"operation will always return the value 1, which is likely not what "
                      f"you intended. Did you mean to use a sigmoid instead?", UserWarning,
                      stacklevel=2)
    return Softmax(x, axis=axes)


def log_softmax(x, axis=-1):
    """Logarithm of the softmax: ``x - logsumexp(x, axis)``.

    Computed stably, without forming ``softmax(x)``.

    Args:
        x: The input tensor (or array).
        axis: The axis (an int or a tuple of ints) the softmax normalizes over.
            Defaults to -1.

    Returns:
        A tensor of the shape of ``x``.

    Example:

    >>> x = np.array([-2.0, -0.5, 0.5, 2.0])
    >>> np.round(lamina.activations.log_softmax(x).numpy(), 4)
    array([-4.2803, -2.7803, -1.7803, -0.2803])
    """
    x, axes = _prepare("log_softmax", x, axis)
    return LogSoftmax(x, axis=axes)

