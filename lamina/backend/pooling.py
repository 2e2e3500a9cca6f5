"""Pooling kernels (NHWC images), written against ``self.xp``: a loop over the kh*kw
window offsets of elementwise ops on strided views. The max-pool gradient routes each
output's gradient to the first maximum of its window only, so ties (common after a ReLU)
do not multiply the gradient. ``pads`` are explicit ``((top, bottom), (left, right))``.

Where the backend's ``onednn`` is true, pooling and both gradients go to oneDNN first
(dnnl_pool.py); ``max_pool2d_select`` (second order) stays here.

Mixed into the Backend next to the convolution kernels (conv.py), whose padding and output
helpers (``_pad_nhwc``, ``_unpad_into``, ``_contiguous_out``) it uses.
"""
from __future__ import annotations

from .conv_blocks import conv_output_size, _window
from .dtype_limits import lowest

class PoolKernels:
    """max/avg pooling and their gradients."""

    def _pool_geometry(self, shape, pool_size, strides, pads):
        n, h, w, c = shape
        oh = conv_output_size(h, pool_size[0], strides[0], pads[0], 1)
        ow = conv_output_size(w, pool_size[1], strides[1], pads[1], 1)
        return (n, oh, ow, c)

    def _pool_windows(self, padded, pool_size, strides, out_hw):
        """Every window offset's strided view of ``padded``: one output-shaped view each."""
        (kh, kw), (sh, sw), (oh, ow) = pool_size, strides, out_hw
        return [padded[:, _window(i, oh, sh), _window(j, ow, sw)]
                for i in range(kh) for j in range(kw)]

    def _pool_counts(self, in_hw, pool_size, strides, pads, out_hw, dtype):
        """1 / (number of real, unpadded elements) of each window, shaped (OH, OW, 1)."""
        xp = self.xp
        axes = []
        for size, k, s, (before, _), o in zip(in_hw, pool_size, strides, pads, out_hw):
            start = xp.arange(o) * s - before
            stop = xp.minimum(start + k, size)
            axes.append(stop - xp.maximum(start, 0))
        counts = axes[0][:, None] * axes[1][None, :]
        return (1.0 / counts.astype(dtype))[:, :, None]

    @staticmethod
    def _tiles_exactly(padded_hw, pool_size, strides, out_hw) -> bool:
        """Whether the windows cover every padded position exactly once."""
        return pool_size == strides and all(
            o * s == p for o, s, p in zip(out_hw, strides, padded_hw))

    def _pool_fill_value(self, dtype):
        return lowest(dtype)        # ml_dtypes' bfloat16/float8 too (numpy's iinfo fails)

    def pool2d(self, x, fn, pool_size, strides, pads, out=None):
        """Max or average pooling; the average counts only real (unpadded) elements."""
        xp = self.xp
        if fn not in ("max", "avg"):
            raise ValueError(f"pool2d: expected fn 'max' or 'avg'; received {fn!r}")
        shape = self._pool_geometry(x.shape, pool_size, strides, pads)
        if self.onednn:
            y = self.dnnl_pool2d(x, fn, shape, pool_size, strides, pads, out)
            if y is not None:
                return y
        padded = self._pad_nhwc(x, pads, self._pool_fill_value(x.dtype) if fn == "max" else 0)
        windows = self._pool_windows(padded, pool_size, strides, shape[1:3])
        y = out if out is not None else xp.empty(shape, dtype=x.dtype)
        combine = xp.maximum if fn == "max" else xp.add
        if len(windows) == 1:
            y[...] = windows[0]
        else:
            combine(windows[0], windows[1], out=y)
            for view in windows[2:]:
                combine(y, view, out=y)
        if fn == "avg":
            if pads == ((0, 0), (0, 0)):
                y *= 1.0 / (pool_size[0] * pool_size[1])
            else:
                y *= self._pool_counts(x.shape[1:3], pool_size, strides, pads, shape[1:3],
                                       x.dtype)
        return y

    def _first_max_masks(self, x, y, pool_size, strides, pads):
        """Yield (window offset index, bool mask): where each window's *first* maximum is."""
        xp = self.xp
        padded = self._pad_nhwc(x, pads, self._pool_fill_value(x.dtype))
        windows = self._pool_windows(padded, pool_size, strides, y.shape[1:3])
        last = len(windows) - 1
        mask = xp.empty(y.shape, dtype=bool)
        taken = xp.empty(y.shape, dtype=bool) if last else None
        for index, view in enumerate(windows):
            if index == 0:
                xp.equal(view, y, out=mask)
                if last:
                    taken[...] = mask
            elif index < last:
                xp.equal(view, y, out=mask)
                xp.greater(mask, taken, out=mask)            # equal and not taken before
                xp.logical_or(taken, mask, out=taken)
            else:
                # y is the window's maximum, so it is here unless an earlier offset had it.
                xp.logical_not(taken, out=mask)
            yield index, mask

    def max_pool2d_backprop(self, x, y, dy, pool_size, strides, pads, out=None):
        """Route each ``dy`` to the first maximum of its window (into ``out``, shaped like
        ``x``, when given: a memory plan's buffer instead of a new array per call)."""
        xp = self.xp
        if self.onednn:
            dx = self.dnnl_max_pool2d_backprop(x, dy, pool_size, strides, pads, out)
            if dx is not None:
                return dx
        n, h, w, c = x.shape
        (top, bottom), (left, right) = pads
        padded_hw = (h + top + bottom, w + left + right)
        exact = self._tiles_exactly(padded_hw, pool_size, strides, y.shape[1:3])
        unpadded = pads == ((0, 0), (0, 0))
        if unpadded and out is not None:
            dxpad = out
            if not exact:
                dxpad[...] = 0
        else:
            dxpad = (xp.empty if exact else xp.zeros)((n,) + padded_hw + (c,), dtype=dy.dtype)
        targets = self._pool_windows(dxpad, pool_size, strides, y.shape[1:3])
        routed = None if exact else xp.empty(y.shape, dtype=dy.dtype)
        # (A masked copy, copyto(where=), would skip the multiply but mispredicts a branch
        # per element on random masks: 4x slower measured.)
        for index, mask in self._first_max_masks(x, y, pool_size, strides, pads):
            if exact:                     # windows do not overlap: each element written once
                xp.multiply(mask, dy, out=targets[index])
            else:
                targets[index] += xp.multiply(mask, dy, out=routed)
        if unpadded:
            return dxpad
        return self._unpad_into(dxpad, pads, out if out is not None else
                                xp.empty(x.shape, dtype=dy.dtype))

    def max_pool2d_select(self, x, y, g, pool_size, strides, pads):
        """The adjoint of ``max_pool2d_backprop`` in ``dy``: ``g`` at each window's first max."""
        xp = self.xp
        gpad = self._pad_nhwc(g, pads)
        sources = self._pool_windows(gpad, pool_size, strides, y.shape[1:3])
        result = xp.zeros(y.shape, dtype=g.dtype)
        picked = xp.empty(y.shape, dtype=g.dtype)
        for index, mask in self._first_max_masks(x, y, pool_size, strides, pads):
            result += xp.multiply(mask, sources[index], out=picked)
        return result

    def avg_pool2d_backprop(self, dy, input_shape, pool_size, strides, pads):
        """Spread each ``dy`` evenly over the real elements of its window."""
        xp = self.xp
        if self.onednn:
            dx = self.dnnl_avg_pool2d_backprop(dy, input_shape, pool_size, strides, pads)
            if dx is not None:
                return dx
        n, h, w, c = input_shape
        (top, bottom), (left, right) = pads
        padded_hw = (h + top + bottom, w + left + right)
        out_hw = dy.shape[1:3]
        if pads == ((0, 0), (0, 0)):
            share = dy * (1.0 / (pool_size[0] * pool_size[1]))
        else:
            share = dy * self._pool_counts((h, w), pool_size, strides, pads, out_hw, dy.dtype)
        exact = self._tiles_exactly(padded_hw, pool_size, strides, out_hw)
        dxpad = (xp.empty if exact else xp.zeros)((n,) + padded_hw + (c,), dtype=dy.dtype)
        for view in self._pool_windows(dxpad, pool_size, strides, out_hw):
            if exact:
                view[...] = share
            else:
                view += share
        if pads == ((0, 0), (0, 0)):
            return dxpad
        return self._unpad_into(dxpad, pads, xp.empty(input_shape, dtype=dy.dtype))
