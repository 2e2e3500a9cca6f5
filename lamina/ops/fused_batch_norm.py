"""Training batch normalization as one op: ``batch_norm_train`` (the normalized batch and its
statistics) and its gradient ``batch_norm_train_grad``.

Why: written with elementwise ops and reductions, a training BatchNormalization costs about
ten kernels forward and twenty backward, each a pass over the activation (ResNet50's batch-16
step spent 2.4 s of 5.2 s there). These ops make one pass forward and one backward: oneDNN's
batch normalization primitive on the CPU (``backend/dnnl_norm.py``; float32, 8-14x the
composed ops on ResNet50's shapes), so ``BatchNormalization`` uses them where oneDNN runs
them (``runs_fused``) and keeps its composed form elsewhere (GPU backends, oneDNN off,
masks, synchronized statistics). Where an op is given a case oneDNN does not take, it
computes the same formulas with the backend's array module.

``(y, mean, variance) = batch_norm_train(x[, scale][, shift], epsilon=, axis=)``:
``mean`` and the biased ``variance`` over every axis of ``x`` but ``axis`` (shape
``(C,)``), ``y = (x - mean) / sqrt(variance + epsilon) * scale + shift``. Gradients flow
into ``x``, ``scale`` and ``shift`` from all three outputs. The gradient op has no gradient
itself (no second order through a fused batch normalization).
"""
from __future__ import annotations

from ..core.tensor import Tensor
from ..backend import dnnl_norm as kernels
from ..backend import get_backend
from ..dtypes import is_float
from ..errors import DTypeError, ShapeError, describe_shape
from . import math as _math
from . import reduction as _reduction
from . import reshaping as _reshaping
from . import core as _core
from .core import as_tensors
from ..core.op import Op, Spec, register_op

__all__ = ["batch_norm_train", "runs_fused"]


def runs_fused(x) -> bool:
    """Whether ``batch_norm_train`` runs on oneDNN for ``x`` (a concrete tensor's backend,
    or the active one while tracing): numpy backend with oneDNN on, float32."""
    backend = x.backend if isinstance(x, Tensor) else get_backend()
    return (bool(getattr(backend, "onednn", False)) and bool(backend.host_arrays)
            and str(x.dtype) == "float32" and kernels.dl.runtime() is not None)


def _is_zero(g) -> bool:
    """Whether ``g`` is None, a traced ``zeros_like`` (graph autodiff's gradient of an
    unused output) or a concrete all-zero tensor (the tape's): its term is then left out,
    in both modes alike."""
    if g is None:
        return True
    node = getattr(g, "node", None)
    if node is not None:
        return node.op.name == "fill_like" and node.attrs.get("value") == 0
    return isinstance(g, Tensor) and not bool(g.numpy().any())


def _split(inputs, scale: bool, shift: bool):
    x, rest = inputs[0], list(inputs[1:])
    gamma = rest.pop(0) if scale else None
    beta = rest.pop(0) if shift else None
    if rest:
        raise TypeError(f"batch_norm_train: expected {1 + scale + shift} inputs for "
                        f"scale={scale}, shift={shift}; received {len(inputs)}")
    return x, gamma, beta


def _check(op, x, axis, **params):
    if len(x.shape) < 2:
        raise ShapeError(f"{op}: argument 'x' must have rank 2 or more; received shape "
                         f"{describe_shape(x.shape)}")
    if not -len(x.shape) <= axis < len(x.shape):
        raise ShapeError(f"{op}: argument 'axis' must be an axis of 'x' (rank "
                         f"{len(x.shape)}); received {axis}")
    if not is_float(x.dtype):
        raise DTypeError(f"{op}: argument 'x' must be a float tensor; received {x.dtype}")
    channels = x.shape[axis]
    for name, value in params.items():
        if value is None:
            continue
        if tuple(value.shape) != (channels,) and channels is not None:
            raise ShapeError(f"{op}: argument '{name}' must have shape ({channels},), the "
                             f"channels of 'x' on axis {axis}; received "
                             f"{describe_shape(value.shape)}")
        if value.dtype != x.dtype:
            raise DTypeError(f"{op}: argument '{name}' must have the dtype of 'x' "
                             f"({x.dtype}); received {value.dtype}")
    return channels


def _broadcast(xp, v, ndim, axis):
    shape = [1] * ndim
    shape[axis] = v.shape[0]
    return v.reshape(shape)


def _reference_forward(xp, x, gamma, beta, epsilon, axis):
    axes = tuple(i for i in range(x.ndim) if i != axis % x.ndim)
    mean = x.mean(axis=axes, keepdims=True)
    centered = x - mean
    variance = xp.square(centered).mean(axis=axes)
    inv = 1.0 / xp.sqrt(variance + x.dtype.type(epsilon))
    y = centered * _broadcast(xp, inv if gamma is None else inv * gamma, x.ndim, axis)
    if beta is not None:
        y += _broadcast(xp, beta, x.ndim, axis)
    return y, mean.reshape(-1), variance


def _reference_grad(xp, x, gamma, mean, variance, dy, epsilon, axis, shift):
    axes = tuple(i for i in range(x.ndim) if i != axis % x.ndim)
    count = x.size // x.shape[axis]
    inv = 1.0 / xp.sqrt(variance + x.dtype.type(epsilon))
    normalized = (x - _broadcast(xp, mean, x.ndim, axis)) * _broadcast(xp, inv, x.ndim, axis)
    dshift = dy.sum(axis=axes)
    dscale = (dy * normalized).sum(axis=axes)
    factor = inv if gamma is None else inv * gamma
    dx = (dy - (_broadcast(xp, dshift, x.ndim, axis) + normalized *
                _broadcast(xp, dscale, x.ndim, axis)) / count) * _broadcast(
        xp, factor, x.ndim, axis)
    return dx.astype(x.dtype), (dscale if gamma is not None else None), (
        dshift if shift else None)


def _into(results, out):
    if out is None:
        return results
    for o, r in zip(out, results):
        o[...] = r
    return tuple(out)


@register_op
class BatchNormTrain(Op):
    """Inputs ``(x[, scale][, shift])``; outputs ``(y, mean, variance)``."""
    name = "batch_norm_train"
    writes_out = True
    onednn_primitives = True

    def output_spec(self, *inputs, epsilon=1e-3, axis=-1, scale=True, shift=True):
        x, gamma, beta = _split(inputs, scale, shift)
        channels = _check(self.name, x, axis, scale=gamma, shift=beta)
        stat = Spec((channels,), x.dtype)
        return Spec(tuple(x.shape), x.dtype), stat, stat

    def forward(self, backend, *arrays, out=None, epsilon=1e-3, axis=-1, scale=True,
                shift=True):
        x, gamma, beta = _split(arrays, scale, shift)
        results = None
        if getattr(backend, "onednn", False):
            results = kernels.batch_norm_train(backend.xp, x, gamma, beta, epsilon, axis)
        if results is None:
            results = _reference_forward(backend.xp, x, gamma, beta, epsilon, axis)
        return _into(results, out)

    def gradient(self, ctx, dy, dmean, dvariance):
        x, gamma, beta = _split(ctx.inputs, ctx.attrs.get("scale", True),
                                ctx.attrs.get("shift", True))
        _, mean, variance = ctx.outputs
        params = tuple(p for p in (gamma,) if p is not None)
        grads = BatchNormTrainGrad(x, mean, variance, dy, *params, **ctx.attrs)
        dx, *dparams = grads if isinstance(grads, tuple) else (grads,)
        axis = ctx.attrs.get("axis", -1) % len(x.shape)
        shape = [1] * len(x.shape)
        shape[axis] = x.shape[axis]
        # The statistics' own gradients: d mean / dx = 1/count, d variance / dx =
        # 2 (x - mean) / count (the mean's share of the variance sums to zero). The count
        # is a sum of ones: the batch size may be unknown while tracing.
        if _is_zero(dmean) and _is_zero(dvariance):
            return (dx, *dparams)
        axes = tuple(i for i in range(len(x.shape)) if i != axis)
        count = _reduction.sum(_core.ones_like(x), axis=axes, keepdims=True)
        if not _is_zero(dmean):
            dx = _math.add(dx, _math.divide(_reshaping.reshape(dmean, shape), count))
        if not _is_zero(dvariance):
            centered = _math.subtract(x, _reshaping.reshape(mean, shape))
            scaled = _math.multiply(_reshaping.reshape(dvariance, shape), 2.0)
            dx = _math.add(dx, _math.multiply(centered, _math.divide(scaled, count)))
        return (dx, *dparams)


@register_op
class BatchNormTrainGrad(Op):
    """Inputs ``(x, mean, variance, dy[, scale])``; outputs the gradients of ``x``, then of
    ``scale`` and ``shift`` where the forward had them."""
    name = "batch_norm_train_grad"
    writes_out = True
    differentiable = False
    onednn_primitives = True

    def output_spec(self, x, mean, variance, dy, *params, epsilon=1e-3, axis=-1, **flags):
        has_scale, has_shift = flags.get("scale", True), flags.get("shift", True)
        if len(params) != int(has_scale):
            raise TypeError(f"{self.name}: expected {'a' if has_scale else 'no'} 'scale' "
                            f"input; received {len(params)}")
        _check(self.name, x, axis, mean=mean, variance=variance,
               scale=params[0] if params else None)
        if tuple(dy.shape) != tuple(x.shape):
            raise ShapeError(f"{self.name}: argument 'dy' must have the shape of 'x' "
                             f"{describe_shape(x.shape)}; received {describe_shape(dy.shape)}")
        stat = Spec((x.shape[axis],), x.dtype)
        specs = (Spec(tuple(x.shape), x.dtype),) + (stat,) * (int(has_scale) + int(has_shift))
        return specs if len(specs) > 1 else specs[0]

    def forward(self, backend, x, mean, variance, dy, *params, out=None, epsilon=1e-3,
                axis=-1, **flags):
        gamma = params[0] if params else None
        shift = flags.get("shift", True)
        results = None
        if getattr(backend, "onednn", False):
            results = kernels.batch_norm_grad(backend.xp, x, gamma, mean, variance, dy,
                                              epsilon, axis, shift)
        if results is None:
            results = _reference_grad(backend.xp, x, gamma, mean, variance, dy, epsilon,
                                      axis, shift)
        results = tuple(r for r in results if r is not None)
        if len(results) == 1:                  # only dx: a single output
            return _into(results, None if out is None else (out,))[0]
        return _into(results, out)


def batch_norm_train(x, scale=None, shift=None, epsilon: float = 1e-3, axis: int = -1):
    """``(y, mean, variance)``: ``x`` normalized with its own statistics over every axis but
    ``axis`` (see the module docstring)."""
    params = tuple(p for p in (scale, shift) if p is not None)
    inputs = as_tensors("batch_norm_train", x, *params)
    return tuple(BatchNormTrain(*inputs, epsilon=float(epsilon), axis=int(axis),
                                scale=scale is not None, shift=shift is not None))
