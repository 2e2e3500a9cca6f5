"""Pooling on oneDNN: max and average pooling forward, and their gradients, on NHWC arrays.

Same semantics as pooling.py's kernels: the average counts only real (unpadded) elements
(oneDNN's ``avg_exclude_padding``), and the max-pool gradient goes to the first maximum of
each window in row-major window order (oneDNN's workspace records the first index whose value
exceeds the ones before it). ``max_pool2d_backprop`` receives ``x`` and ``y`` but no
workspace, so it reruns the forward with a workspace (a pool costs a small fraction of its
gradient), then the backward; both buffers belong to the cached primitive pair.

Each kernel returns None where oneDNN does not take the case (the numpy kernels then run).
"""
from __future__ import annotations

import threading

from . import dnnl_lib as dl
from .dnnl_conv import _nchw

_ALGORITHMS = {"max": dl.POOLING_MAX, "avg": dl.POOLING_AVG_EXCLUDE}


def _elements(shape) -> int:
    count = 1
    for d in shape:
        count *= d
    return count


def _geometry(pool_size, strides, pads):
    return (dl.dims_of(strides), dl.dims_of(pool_size), dl.dims_of((0, 0)),
            dl.dims_of(p[0] for p in pads), dl.dims_of(p[1] for p in pads))


def _forward_pd(rt, fn, x_shape, y_shape, dtype, geometry, prop):
    src, dst, attr = _nchw(rt, x_shape, dtype), _nchw(rt, y_shape, dtype), dl.Attr(rt)
    return dl.PrimitiveDesc(rt, lambda h: rt.lib.dnnl_pooling_forward_primitive_desc_create(
        h, rt.engine, prop, _ALGORITHMS[fn], src.handle, dst.handle, *geometry, attr.handle),
        f"{fn} pooling forward")


def _backward_pd(rt, fn, x_shape, y_shape, dtype, geometry, hint):
    dsrc, ddst, attr = _nchw(rt, x_shape, dtype), _nchw(rt, y_shape, dtype), dl.Attr(rt)
    return dl.PrimitiveDesc(rt, lambda h: rt.lib.dnnl_pooling_backward_primitive_desc_create(
        h, rt.engine, _ALGORITHMS[fn], dsrc.handle, ddst.handle, *geometry, hint.handle,
        attr.handle), f"{fn} pooling backward")


class _MaxPoolGradient:
    """The forward (with workspace) and backward primitives of one max-pool geometry."""

    def __init__(self, rt, x_shape, y_shape, dtype, geometry, xp, np_dtype):
        hint = _forward_pd(rt, "max", x_shape, y_shape, dtype, geometry, dl.FORWARD_TRAINING)
        work = _elements(x_shape)
        self.forward = dl.Primitive(rt, hint, ("src", "dst", "workspace"), xp, work=work)
        self.backward = dl.Primitive(
            rt, _backward_pd(rt, "max", x_shape, y_shape, dtype, geometry, hint),
            ("diff_dst", "workspace", "diff_src"), xp, work=work)
        self.workspace = xp.empty(max(self.forward.sizes["workspace"], 1), dtype="uint8")
        self.y = xp.empty(y_shape, dtype=np_dtype)
        self.lock = threading.Lock()

    def __call__(self, x, dy, dx) -> None:
        with self.lock:
            self.forward(src=x, dst=self.y, workspace=self.workspace)
            self.backward(diff_dst=dy, workspace=self.workspace, diff_src=dx)


class DnnlPool:
    """Mixed into the numpy backend: oneDNN's pooling where it applies."""

    def _dnnl_pool_type(self, *arrays):
        dtype = arrays[0].dtype
        if dtype.name not in ("float32", "bfloat16") or any(
                a.dtype != dtype or a.size == 0 for a in arrays):
            return None
        return dl.data_type(dtype)

    def _dnnl_pool_applies(self, pool_size, pads) -> bool:
        # Windows wholly inside the padding have no real element: oneDNN then writes the
        # lowest value or divides by zero where numpy's kernels give -inf / nan.
        return all(p < k for pair, k in zip(pads, pool_size) for p in pair) and all(
            p >= 0 for pair in pads for p in pair)

    def dnnl_pool2d(self, x, fn, y_shape, pool_size, strides, pads, out=None):
        rt = dl.runtime()
        dtype = rt and self._dnnl_pool_type(x)
        if not dtype or not self._dnnl_pool_applies(pool_size, pads) or 0 in y_shape:
            return None
        key = ("pool", fn, x.shape, y_shape, dtype, pool_size, strides, pads)

        def make():
            pd = _forward_pd(rt, fn, x.shape, y_shape, dtype,
                             _geometry(pool_size, strides, pads), dl.FORWARD_INFERENCE)
            return dl.Primitive(rt, pd, ("src", "dst"), self.xp, work=_elements(x.shape))
        primitive = dl.cached(key, make)
        if primitive is None:
            return None
        y = dl.target(out, y_shape, x.dtype)
        primitive(src=self.xp.ascontiguousarray(x), dst=y)
        return dl.finish(y, out)

    def dnnl_max_pool2d_backprop(self, x, dy, pool_size, strides, pads, out=None):
        rt = dl.runtime()
        dtype = rt and self._dnnl_pool_type(x, dy)
        if not dtype or not self._dnnl_pool_applies(pool_size, pads):
            return None
        key = ("max_pool_grad", x.shape, dy.shape, dtype, pool_size, strides, pads)
        pair = dl.cached(key, lambda: _MaxPoolGradient(
            rt, x.shape, dy.shape, dtype, _geometry(pool_size, strides, pads), self.xp,
            x.dtype))
        if pair is None:
            return None
        dx = dl.target(out, x.shape, dy.dtype)
        pair(self.xp.ascontiguousarray(x), self.xp.ascontiguousarray(dy), dx)
        return dl.finish(dx, out)

    def dnnl_avg_pool2d_backprop(self, dy, input_shape, pool_size, strides, pads):
        rt = dl.runtime()
        dtype = rt and self._dnnl_pool_type(dy)
        input_shape = tuple(input_shape)
        if not dtype or not self._dnnl_pool_applies(pool_size, pads) or 0 in input_shape:
            return None
        key = ("avg_pool_grad", input_shape, dy.shape, dtype, pool_size, strides, pads)

        def make():
            geometry = _geometry(pool_size, strides, pads)
            hint = _forward_pd(rt, "avg", input_shape, dy.shape, dtype, geometry,
                               dl.FORWARD_TRAINING)
            return dl.Primitive(rt, _backward_pd(rt, "avg", input_shape, dy.shape, dtype,
                                                 geometry, hint),
                                ("diff_dst", "diff_src"), self.xp,
                                work=_elements(input_shape))
        primitive = dl.cached(key, make)
        if primitive is None:
            return None
        dx = self.xp.empty(input_shape, dtype=dy.dtype)
        primitive(diff_dst=self.xp.ascontiguousarray(dy), diff_src=dx)
        return dx
