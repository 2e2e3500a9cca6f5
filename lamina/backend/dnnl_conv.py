"""Convolutions on oneDNN: forward, backward data and backward weights of conv2d and conv3d
(1-D convolutions reach these through conv2d), on channels-last activations (NHWC, NDHWC)
and (spatial..., in, out) filters (HWIO, DHWIO) as they are, for float32 and bfloat16. The
kernels take 2-D and 3-D geometry alike: shapes, strides, pads and dilations of 2 or 3
spatial axes.

Each kernel returns None where oneDNN refuses the case (no library, another dtype, negative
pads, an empty batch, only a reference implementation): the numpy kernels then run. A
primitive is created once per (kind, shapes, dtype, strides, pads, dilation, groups) and kept
(``dnnl_lib.cached``); eager mode and graph plans share it, so both modes run the same code on the
same layout and thread count and get the same bits. Against the numpy im2col kernels the
difference is float32 rounding of another summation order (tests use rtol 1e-5, atol 1e-5
relative to the output's scale).
"""
from __future__ import annotations

from . import dnnl_lib as dl
from .conv_blocks import conv_output_size

def _nchw(rt, shape, dtype):
    """The descriptor of a C-contiguous channels-last array of ``shape`` (NWC, NHWC, NDHWC),
    as oneDNN's (N, C, spatial...)."""
    strides = dl.c_strides(shape)
    return dl.MemoryDesc(rt, (shape[0], shape[-1], *shape[1:-1]), dtype,
                         (strides[0], 1, *strides[1:-1]))


def _filter(rt, shape, groups, dtype, any_layout=False):
    """The descriptor of a C-contiguous (spatial..., I, O) filter (HWIO, DHWIO): (O, I,
    spatial...), or grouped (G, O/G, I/G, spatial...) with output channel ``g * O/G + o``;
    ``any_layout``: the same dims in the layout the primitive prefers (the filter is
    reordered into it)."""
    *window, cg, cout = shape
    if any_layout:
        dims = (cout, cg, *window) if groups == 1 else (groups, cout // groups, cg, *window)
        return dl.MemoryDesc(rt, dims, dtype)
    strides = dl.c_strides(shape)
    spatial, si = strides[:-2], strides[-2]
    if groups == 1:
        return dl.MemoryDesc(rt, (cout, cg, *window), dtype, (1, si, *spatial))
    og = cout // groups
    return dl.MemoryDesc(rt, (groups, og, cg, *window), dtype, (og, 1, si, *spatial))


def _macs(y_shape, w_shape) -> int:
    """Multiply-adds of a convolution with output ``y_shape`` and (spatial..., I, O)
    filter ``w_shape``."""
    count = 1
    for d in (*y_shape, *w_shape[:-1]):
        count *= d
    return count


def _geometry(strides, pads, dilation):
    return (dl.dims_of(strides), dl.dims_of(d - 1 for d in dilation),
            dl.dims_of(p[0] for p in pads), dl.dims_of(p[1] for p in pads))


class DnnlConv:
    """Mixed into the numpy backend: oneDNN's convolutions where they apply."""

    def _dnnl_conv_type(self, *arrays):
        """oneDNN's data type for arrays of one float dtype, or None (numpy runs)."""
        dtype = arrays[0].dtype
        if any(a.dtype != dtype or a.size == 0 for a in arrays):
            return None
        code = dl.data_type(dtype)
        return code if dtype.name in ("float32", "bfloat16") else None

    @staticmethod
    def _refuses_pads(pads) -> bool:
        return any(p < 0 for pair in pads for p in pair)

    def _forward_pd(self, rt, x_shape, w_shape, y_shape, dtype, strides, pads, dilation,
                    groups, prop=dl.FORWARD_TRAINING, bias=False, relu=False):
        src, wei = _nchw(rt, x_shape, dtype), _filter(rt, w_shape, groups, dtype, True)
        dst = _nchw(rt, y_shape, dtype)
        bias_md = dl.MemoryDesc(rt, (y_shape[-1],), dtype, (1,)) if bias else None
        attr = dl.Attr(rt, post_ops=[(dl.ELTWISE["relu"], 0.0, 0.0)] if relu else ())
        geometry = _geometry(strides, pads, dilation)
        return dl.PrimitiveDesc(rt, lambda pd: rt.lib.dnnl_convolution_forward_primitive_desc_create(
            pd, rt.engine, prop, dl.CONVOLUTION_DIRECT, src.handle, wei.handle,
            bias_md.handle if bias else None, dst.handle, *geometry, attr.handle),
            "convolution forward")

    def dnnl_conv(self, x, w, y_shape, strides, pads, dilation, groups, out=None,
                    bias=None, relu=False):
        """``conv2d`` on oneDNN into a fresh array or ``out``; None where refused. With
        ``bias`` and ``relu``: ``relu(conv2d(x, w) + bias)`` in the same pass (oneDNN adds
        the bias to the finished float32 sum and applies ``x > 0 ? x : x * 0``: the bits of
        the separate add and ``y * (y > 0)``, tested)."""
        rt = dl.runtime()
        dtype = rt and (self._dnnl_conv_type(x, w) if bias is None
                        else self._dnnl_conv_type(x, w, bias))
        if not dtype or self._refuses_pads(pads) or 0 in y_shape:
            return None
        key = ("conv", x.shape, w.shape, y_shape, dtype, strides, pads, dilation, groups,
               bias is not None, relu)
        args = ("src", "weights", "dst") + (("bias",) if bias is not None else ())

        def make():
            pd = self._forward_pd(rt, x.shape, w.shape, y_shape, dtype, strides, pads,
                                  dilation, groups, bias=bias is not None, relu=relu)
            return dl.Primitive(rt, pd, args, self.xp,
                                {"weights": _filter(rt, w.shape, groups, dtype)},
                                work=_macs(y_shape, w.shape))
        primitive = dl.cached(key, make)
        if primitive is None:
            return None
        y = dl.target(out, y_shape, x.dtype)
        arrays = {"src": self.xp.ascontiguousarray(x), "weights": self.xp.ascontiguousarray(w),
                  "dst": y}
        if bias is not None:
            arrays["bias"] = self.xp.ascontiguousarray(bias)
        primitive(**arrays)
        return dl.finish(y, out)

    def conv2d_bias_act(self, x, w, bias, strides, pads, dilation, groups, activation,
                        out=None):
        """``act(conv2d(x, w) + bias)`` in one oneDNN pass (activation 'linear' or 'relu',
        float32 operands); None where it does not apply. (bfloat16 is left out: oneDNN adds
        the bias to the float32 sum before its one rounding, where the separate steps round
        the sum first.)"""
        if not self.onednn or activation not in ("linear", "relu") or bias is None or \
                bias.ndim != 1 or x.size == 0 or w.size == 0 or x.dtype.name != "float32":
            return None
        oh, ow = (conv_output_size(x.shape[1 + a], w.shape[a], strides[a], pads[a],
                                   dilation[a]) for a in range(2))
        return self.dnnl_conv(x, w, (x.shape[0], oh, ow, w.shape[3]), strides, pads,
                                dilation, groups, out, bias=bias, relu=activation == "relu")

    def dnnl_conv_backprop_input(self, dy, w, input_shape, strides, pads, dilation, groups,
                                   out=None):
        rt = dl.runtime()
        dtype = rt and self._dnnl_conv_type(dy, w)
        if not dtype or self._refuses_pads(pads) or 0 in input_shape:
            return None
        input_shape = tuple(input_shape)
        key = ("conv_bwd_data", dy.shape, w.shape, input_shape, dtype, strides, pads,
               dilation, groups)

        def make():
            hint = self._forward_pd(rt, input_shape, w.shape, dy.shape, dtype, strides, pads,
                                    dilation, groups)
            dsrc = _nchw(rt, input_shape, dtype)
            wei = _filter(rt, w.shape, groups, dtype, True)
            ddst, attr = _nchw(rt, dy.shape, dtype), dl.Attr(rt)
            geometry = _geometry(strides, pads, dilation)
            pd = dl.PrimitiveDesc(rt, lambda h: rt.lib.dnnl_convolution_backward_data_primitive_desc_create(
                h, rt.engine, dl.CONVOLUTION_DIRECT, dsrc.handle, wei.handle, ddst.handle,
                *geometry, hint.handle, attr.handle), "convolution backward data")
            return dl.Primitive(rt, pd, ("diff_dst", "weights", "diff_src"), self.xp,
                                {"weights": _filter(rt, w.shape, groups, dtype)},
                                work=_macs(dy.shape, w.shape))
        primitive = dl.cached(key, make)
        if primitive is None:
            return None
        dx = dl.target(out, input_shape, dy.dtype)
        primitive(diff_dst=self.xp.ascontiguousarray(dy),
                  weights=self.xp.ascontiguousarray(w), diff_src=dx)
        return dl.finish(dx, out)

    def dnnl_conv_backprop_filter(self, x, dy, filter_shape, strides, pads, dilation,
                                    groups, out=None):
        rt = dl.runtime()
        dtype = rt and self._dnnl_conv_type(x, dy)
        if not dtype or self._refuses_pads(pads):
            return None
        filter_shape = tuple(filter_shape)
        key = ("conv_bwd_weights", x.shape, dy.shape, filter_shape, dtype, strides, pads,
               dilation, groups)

        def make():
            hint = self._forward_pd(rt, x.shape, filter_shape, dy.shape, dtype, strides, pads,
                                    dilation, groups)
            src = _nchw(rt, x.shape, dtype)
            dwei = _filter(rt, filter_shape, groups, dtype, True)
            ddst, attr = _nchw(rt, dy.shape, dtype), dl.Attr(rt)
            geometry = _geometry(strides, pads, dilation)
            pd = dl.PrimitiveDesc(rt, lambda h: rt.lib.dnnl_convolution_backward_weights_primitive_desc_create(
                h, rt.engine, dl.CONVOLUTION_DIRECT, src.handle, dwei.handle, None,
                ddst.handle, *geometry, hint.handle, attr.handle),
                "convolution backward weights")
            return dl.Primitive(rt, pd, ("src", "diff_dst", "diff_weights"), self.xp,
                                {"diff_weights": _filter(rt, filter_shape, groups, dtype)},
                                outputs=("diff_weights",), work=_macs(dy.shape, filter_shape))
        primitive = dl.cached(key, make)
        if primitive is None:
            return None
        dw = dl.target(out, filter_shape, x.dtype)
        primitive(src=self.xp.ascontiguousarray(x), diff_dst=self.xp.ascontiguousarray(dy),
                  diff_weights=dw)
        return dl.finish(dw, out)
