"""3-D convolution kernels (NDHWC volumes, DHWIO filters), written against ``self.xp``.

Where the backend's ``onednn`` is true the three kernels are one oneDNN 3-D convolution
each (dnnl_conv.py). Elsewhere a 3-D convolution is a sum over its depth taps: tap ``i``
sees the depth slices ``i * dilation + k * stride`` of the (depth-padded) input, and those
slices, stacked into the batch, go through the 2-D kernels with ``w[i]``. The input
gradient adds each tap's 2-D input gradient back into those slices; the filter gradient of
tap ``i`` is the 2-D filter gradient of its slices.

``pads`` are explicit ``((front, back), (top, bottom), (left, right))``, non-negative.
"""
from __future__ import annotations

from .conv_blocks import conv_output_size


class Conv3DKernels:
    """Mixed into Backend: conv3d and its two backprops."""

    def _depth_taps(self, volume, taps: int, out_depth: int, stride: int, dilation: int):
        """For each depth tap, its slices of ``volume`` (N, D, H, W, C) stacked into one
        batch of images (N * out_depth, H, W, C)."""
        n, _, h, w, c = volume.shape
        for i in range(taps):
            start = i * dilation
            slices = volume[:, start:start + (out_depth - 1) * stride + 1:stride]
            yield i, self.xp.ascontiguousarray(slices).reshape(n * out_depth, h, w, c)

    def _pad_depth(self, x, pads):
        front, back = pads[0]
        if front == back == 0:
            return x
        padded = self.xp.zeros((x.shape[0], x.shape[1] + front + back) + x.shape[2:],
                               dtype=x.dtype)
        padded[:, front:front + x.shape[1]] = x
        return padded

    def conv3d(self, x, w, strides, pads, dilation, groups, out=None):
        """``y[n, t, p, q, o] = sum xpad[n, t*s0 + i*d0, p*s1 + j*d1, q*s2 + k*d2, c]
        * w[i, j, k, c, o]``."""
        n = x.shape[0]
        kd, cout = w.shape[0], w.shape[4]
        spatial = tuple(conv_output_size(x.shape[1 + a], w.shape[a], strides[a], pads[a],
                                         dilation[a]) for a in range(3))
        shape = (n, *spatial, cout)
        dtype = self.xp.result_type(x, w)
        if x.size == 0 or w.size == 0:
            return self._zeros_into(out, shape, dtype)
        if self.onednn:
            y = self.dnnl_conv(x, w, shape, strides, pads, dilation, groups, out)
            if y is not None:
                return y
        total = None
        for i, images in self._depth_taps(self._pad_depth(x, pads), kd, spatial[0],
                                          strides[0], dilation[0]):
            z = self.conv2d(images, w[i], strides[1:], pads[1:], dilation[1:], groups)
            total = z if total is None else self.xp.add(total, z, out=total)
        return self._finish(total.reshape(shape), out)

    def conv3d_backprop_input(self, dy, w, input_shape, strides, pads, dilation, groups,
                              out=None):
        """The gradient of ``conv3d`` with respect to ``x``, shaped ``input_shape``."""
        xp = self.xp
        input_shape = tuple(input_shape)
        n, depth, h, wd, c = input_shape
        kd = w.shape[0]
        dtype = xp.result_type(dy, w)
        if dy.size == 0 or w.size == 0:
            return self._zeros_into(out, input_shape, dtype)
        if self.onednn:
            dx = self.dnnl_conv_backprop_input(dy, w, input_shape, strides, pads, dilation,
                                               groups, out)
            if dx is not None:
                return dx
        (front, back), od = pads[0], dy.shape[1]
        dxpad = xp.zeros((n, depth + front + back, h, wd, c), dtype=dtype)
        images = dy.reshape(n * od, *dy.shape[2:])
        for i in range(kd):
            part = self.conv2d_backprop_input(images, w[i], (n * od, h, wd, c), strides[1:],
                                              pads[1:], dilation[1:], groups)
            start = i * dilation[0]
            target = dxpad[:, start:start + (od - 1) * strides[0] + 1:strides[0]]
            xp.add(target, part.reshape(n, od, h, wd, c), out=target)
        return self._finish(dxpad[:, front:front + depth], out)

    def conv3d_backprop_filter(self, x, dy, filter_shape, strides, pads, dilation, groups,
                               out=None):
        """The gradient of ``conv3d`` with respect to ``w``, shaped ``filter_shape``."""
        xp = self.xp
        filter_shape = tuple(filter_shape)
        dtype = xp.result_type(x, dy)
        if x.size == 0 or dy.size == 0:
            return self._zeros_into(out, filter_shape, dtype)
        if self.onednn:
            dw = self.dnnl_conv_backprop_filter(x, dy, filter_shape, strides, pads, dilation,
                                                groups, out)
            if dw is not None:
                return dw
        dw = self._contiguous_out(out, filter_shape, dtype)
        od = dy.shape[1]
        images = xp.ascontiguousarray(dy).reshape(dy.shape[0] * od, *dy.shape[2:])
        for i, taps in self._depth_taps(self._pad_depth(x, pads), filter_shape[0], od,
                                        strides[0], dilation[0]):
            dw[i] = self.conv2d_backprop_filter(taps, images, filter_shape[1:], strides[1:],
                                                pads[1:], dilation[1:], groups)
        return self._finish(dw, out)
