"""Batch normalization on oneDNN: the training forward (batch statistics) and its gradient,
float32, channels on any one axis.

An array of shape ``(..., C, ...)`` normalized over every axis but the channel axis is
described to oneDNN by its strides as it is: channels-last (Keras's default) as oneDNN's
``(N, C, spatial...)`` with channel stride 1, any other axis as ``(outer, C, inner)``. No
reorder runs.

``batch_norm_train`` gives ``y = (x - mean) / sqrt(variance + epsilon) * scale + shift``
with the batch ``mean`` and biased ``variance`` (Keras's), and ``batch_norm_grad`` the
gradients of ``x``, ``scale`` and ``shift`` from the saved statistics. Each returns None
where oneDNN does not take the case (the caller's reference formulas then run).
"""
from __future__ import annotations

from . import dnnl_lib as dl


def _descriptor(rt, shape, axis):
    """oneDNN's dims and element strides for a C-contiguous array of ``shape`` whose
    channels are on ``axis``."""
    axis %= len(shape)
    channels = shape[axis]
    if axis == len(shape) - 1 and 3 <= len(shape) <= 5:   # NWC, NHWC, NDHWC as they are
        n, spatial = shape[0], shape[1:-1]
        strides = dl.c_strides(shape)
        return dl.MemoryDesc(rt, (n, channels, *spatial), dl.DATA_TYPES["float32"],
                             (strides[0], 1, *strides[1:-1]))
    outer = inner = 1
    for d in shape[:axis]:
        outer *= d
    for d in shape[axis + 1:]:
        inner *= d
    return dl.MemoryDesc(rt, (outer, channels, inner), dl.DATA_TYPES["float32"],
                         (channels * inner, inner, 1))


def _elements(shape) -> int:
    count = 1
    for d in shape:
        count *= d
    return count


def _flags(scale: bool, shift: bool) -> int:
    return (dl.NORM_USE_SCALE if scale else 0) | (dl.NORM_USE_SHIFT if shift else 0)


def _forward_pd(rt, shape, axis, epsilon, flags):
    data, attr = _descriptor(rt, shape, axis), dl.Attr(rt)
    return dl.PrimitiveDesc(
        rt, lambda h: rt.lib.dnnl_batch_normalization_forward_primitive_desc_create(
            h, rt.engine, dl.FORWARD_TRAINING, data.handle, data.handle, epsilon, flags,
            attr.handle), "batch normalization forward")


def _applies(*arrays) -> bool:
    return all(a is None or (a.dtype.name == "float32" and a.size > 0) for a in arrays)


def _params(xp, scale, shift):
    return {name: xp.ascontiguousarray(value) for name, value in
            (("scale", scale), ("shift", shift)) if value is not None}


def batch_norm_train(xp, x, scale, shift, epsilon: float, axis: int):
    """``(y, mean, variance)`` of a training batch normalization; None where refused."""
    rt = dl.runtime()
    if rt is None or not _applies(x, scale, shift) or x.ndim < 2:
        return None
    flags = _flags(scale is not None, shift is not None)
    key = ("batch_norm", x.shape, axis % x.ndim, float(epsilon), flags)
    names = ("src", "dst", "mean", "variance") + tuple(
        n for n, v in (("scale", scale), ("shift", shift)) if v is not None)
    primitive = dl.cached(key, lambda: dl.Primitive(
        rt, _forward_pd(rt, x.shape, axis, epsilon, flags), names, xp,
        work=_elements(x.shape)))
    if primitive is None:
        return None
    channels = x.shape[axis]
    y = xp.empty(x.shape, dtype=x.dtype)
    mean = xp.empty((channels,), dtype=x.dtype)
    variance = xp.empty((channels,), dtype=x.dtype)
    primitive(src=xp.ascontiguousarray(x), dst=y, mean=mean, variance=variance,
              **_params(xp, scale, shift))
    return y, mean, variance


def batch_norm_grad(xp, x, scale, mean, variance, dy, epsilon: float, axis: int,
                    shift: bool):
    """``(dx, dscale, dshift)`` of ``batch_norm_train`` (``dscale`` None without a scale,
    ``dshift`` None without a shift); None where refused."""
    rt = dl.runtime()
    if rt is None or not _applies(x, scale, mean, variance, dy) or x.ndim < 2:
        return None
    flags = _flags(scale is not None, shift)
    key = ("batch_norm_grad", x.shape, axis % x.ndim, float(epsilon), flags)

    def make():
        hint = _forward_pd(rt, x.shape, axis, epsilon, flags)
        data, attr = _descriptor(rt, x.shape, axis), dl.Attr(rt)
        pd = dl.PrimitiveDesc(
            rt, lambda h: rt.lib.dnnl_batch_normalization_backward_primitive_desc_create(
                h, rt.engine, dl.BACKWARD, data.handle, data.handle, data.handle, epsilon,
                flags, hint.handle, attr.handle), "batch normalization backward")
        names = ("src", "mean", "variance", "diff_dst", "diff_src") + (
            ("scale", "diff_scale") if scale is not None else ()) + (
            ("diff_shift",) if shift else ())
        return dl.Primitive(rt, pd, names, xp, work=_elements(x.shape))
    primitive = dl.cached(key, make)
    if primitive is None:
        return None
    channels = x.shape[axis]
    dx = xp.empty(x.shape, dtype=x.dtype)
    dscale = xp.empty((channels,), dtype=x.dtype) if scale is not None else None
    dshift = xp.empty((channels,), dtype=x.dtype) if shift else None
    arrays = {"src": xp.ascontiguousarray(x), "mean": xp.ascontiguousarray(mean),
              "variance": xp.ascontiguousarray(variance),
              "diff_dst": xp.ascontiguousarray(dy), "diff_src": dx}
    if scale is not None:
        arrays.update(scale=xp.ascontiguousarray(scale), diff_scale=dscale)
    if shift:
        arrays["diff_shift"] = dshift
    primitive(**arrays)
    return dx, dscale, dshift
