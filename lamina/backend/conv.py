"""Convolution kernels (NHWC images, HWIO filters), written against ``self.xp``.

Convolution is im2col + GEMM, cache-blocked: the batch is cut into blocks of a few samples
(or of output rows, for big images) whose column buffer, ``(rows, kh*kw*C)``, stays in
cache; each block is filled by one copy from a strided window view and multiplied by the
filter in one GEMM. Measured on the 2-core build machine this runs at about half of the
sgemm roofline, against a quarter for one buffer over the whole batch. The same blocks serve
the filter gradient (``colsᵀ @ dY``, accumulated over blocks in order). The input gradient at stride
1 is itself a convolution (of dY with the flipped, in/out-swapped filter, padded so that the
output is the input's size); at larger strides it is ``dY @ Wᵀ`` scattered back by one
strided ``+=`` per kernel offset (col2im), which never writes one element twice in a block.
A 1x1 stride-1 convolution is a plain GEMM. A 3x3 stride-1 ungrouped float convolution with
32+ channels in and out goes by Winograd F(2,3) (winograd.py) where the backend's
``winograd`` is true (opt-in on the numpy backend); the backprops stay im2col + GEMM.

Groups are a batch dimension of the GEMMs: the column buffer is laid out group-major,
``(groups, rows, kh*kw*C/groups)``, and one batched matmul serves all groups. Depthwise
convolutions (one input channel per group) are kh*kw multiply-adds instead.

Where the backend's ``onednn`` is true (the numpy backend with oneDNN's library present),
the three kernels go to oneDNN's convolutions first (dnnl_conv.py); the code below runs
where oneDNN refuses a case (float64, negative pads...) or is absent.

Pooling is in pooling.py; padding, blocks, im2col and col2im in conv_blocks.py.

``pads`` are explicit ``((top, bottom), (left, right))``; a negative pad crops.
"""
from __future__ import annotations

from .conv_blocks import _BLOCK_BYTES, ConvBlocks, _window, conv_output_size
from .winograd import WinogradConv, winograd_applies


class ConvKernels(ConvBlocks, WinogradConv):
    """Mixed into Backend: conv2d and its two backprops (pooling: pooling.py)."""

    # ----------------------------------------------------------------- convolution
    def conv2d(self, x, w, strides, pads, dilation, groups, out=None):
        """``y[n, p, q, o] = sum_{i,j,c} xpad[n, p*s + i*d, q*s + j*d, c] * w[i, j, c, o]``."""
        xp = self.xp
        n, h, wd, c = x.shape
        kh, kw, cg, cout = w.shape
        og = cout // groups
        oh = conv_output_size(h, kh, strides[0], pads[0], dilation[0])
        ow = conv_output_size(wd, kw, strides[1], pads[1], dilation[1])
        dtype = xp.result_type(x, w)
        if x.size == 0 or w.size == 0:              # an empty batch (or no channels)
            return self._zeros_into(out, (n, oh, ow, cout), dtype)
        if self.onednn:
            y = self.dnnl_conv(x, w, (n, oh, ow, cout), strides, pads, dilation, groups, out)
            if y is not None:
                return y
        if groups > 1 and cg == 1:
            return self._depthwise_conv2d(x, w, strides, pads, dilation, out)
        y = self._contiguous_out(out, (n, oh, ow, cout), dtype)
        if groups == 1 and self._is_pointwise((kh, kw), strides, pads, dilation):
            xp.matmul(x.reshape(-1, c), w.reshape(c, cout), out=y.reshape(-1, cout))
            return self._finish(y, out)
        if self.winograd and winograd_applies(x.shape, w.shape, strides, dilation, groups,
                                              dtype, x.dtype.itemsize):
            return self._finish(self._winograd_conv2d(x, w, pads, y), out)
        geometry = ((kh, kw), strides, dilation, ow)
        kdim = kh * kw * cg
        blocks = self._conv_blocks(n, oh, ow * kh * kw * c * x.dtype.itemsize)
        largest = max((b[1] - b[0]) * (b[3] - b[2]) for b in blocks) * ow
        # Filter as (groups, kh*kw*cg, og): the batched right-hand side of the GEMMs.
        wg = w.reshape(kdim, groups, og).transpose(1, 0, 2)

        def run(part):                  # blocks write disjoint rows of y
            buffer = xp.empty(largest * kh * kw * c, dtype=x.dtype)
            result = None if groups == 1 else xp.empty((groups, largest, og), dtype=dtype)
            for block, xpad, local in self._padded_blocks(x, pads, part):
                n0, n1, r0, r1 = block
                cols = self._im2col(xpad, local, geometry, groups, buffer)
                rows = cols.shape[1]
                target = y[n0:n1, r0:r1]
                if groups == 1:
                    xp.matmul(cols[0], wg[0], out=target.reshape(rows, cout))
                else:
                    product = xp.matmul(cols, wg, out=result[:, :rows])
                    target.reshape(rows, groups, og)[...] = product.transpose(1, 0, 2)
        run(blocks)
        return self._finish(y, out)

    def conv2d_bias_act(self, x, w, bias, strides, pads, dilation, groups, activation,
                        out=None):
        """``act(conv2d(x, w) + bias)`` as one kernel where the backend has one (oneDNN's
        post-ops); None here: the caller runs conv2d and its epilogue."""
        return None

    def conv2d_backprop_input(self, dy, w, input_shape, strides, pads, dilation, groups,
                              out=None):
        """The gradient of ``conv2d`` with respect to ``x``, shaped ``input_shape``."""
        xp = self.xp
        n, h, wd, c = input_shape
        kh, kw, cg, cout = w.shape
        og = cout // groups
        if dy.size == 0 or w.size == 0:
            return self._zeros_into(out, tuple(input_shape), xp.result_type(dy, w))
        if self.onednn:
            dx = self.dnnl_conv_backprop_input(dy, w, input_shape, strides, pads, dilation,
                                                 groups, out)
            if dx is not None:
                return dx
        if groups > 1 and cg == 1:
            return self._depthwise_backprop_input(dy, w, input_shape, strides, pads, dilation,
                                                  out)
        if strides == (1, 1):
            # A stride-1 convolution of dY with the flipped filter whose in/out channels are
            # swapped within each group; padding k_eff-1-p on each side restores the size.
            flipped = w[::-1, ::-1].reshape(kh, kw, cg, groups, og).transpose(0, 1, 4, 3, 2)
            flipped = xp.ascontiguousarray(flipped).reshape(kh, kw, og, groups * cg)
            back_pads = tuple((dil * (k - 1) - p0, dil * (k - 1) - p1)
                              for k, dil, (p0, p1) in zip((kh, kw), dilation, pads))
            return self.conv2d(dy, flipped, (1, 1), back_pads, dilation, groups, out=out)
        dtype = xp.result_type(dy, w)
        _, oh, ow, _ = dy.shape
        (top, bottom), (left, right) = pads
        padded_shape = (n, h + top + bottom, wd + left + right, c)
        plain = top == bottom == left == right == 0
        dxpad = self._contiguous_out(out if plain else None, padded_shape, dtype, zero=True)
        geometry = ((kh, kw), strides, dilation, ow)
        kdim = kh * kw * cg
        blocks = self._conv_blocks(n, oh, ow * kh * kw * c * dy.dtype.itemsize)
        largest = max((b[1] - b[0]) * (b[3] - b[2]) for b in blocks) * ow
        wt = w.reshape(kdim, groups, og).transpose(1, 2, 0)       # (groups, og, kdim)

        def run(part):
            dcols = xp.empty((groups, largest, kdim), dtype=dtype)
            for block in part:
                n0, n1, r0, r1 = block
                rows = (n1 - n0) * (r1 - r0) * ow
                dyb = dy[n0:n1, r0:r1].reshape(rows, groups, og).transpose(1, 0, 2)
                product = xp.matmul(dyb, wt, out=dcols[:, :rows])
                self._col2im_add(dxpad, product, block, geometry, groups)
        run(blocks)
        if plain:
            return self._finish(dxpad, out)
        dx = out if out is not None else xp.empty(input_shape, dtype=dtype)
        return self._unpad_into(dxpad, pads, dx)

    def conv2d_backprop_filter(self, x, dy, filter_shape, strides, pads, dilation, groups,
                               out=None):
        """The gradient of ``conv2d`` with respect to ``w``, shaped ``filter_shape``."""
        xp = self.xp
        n, h, wd, c = x.shape
        kh, kw, cg, cout = filter_shape
        og = cout // groups
        _, oh, ow, _ = dy.shape
        dtype = xp.result_type(x, dy)
        if x.size == 0 or dy.size == 0:
            return self._zeros_into(out, tuple(filter_shape), dtype)
        if self.onednn:
            dw = self.dnnl_conv_backprop_filter(x, dy, filter_shape, strides, pads, dilation,
                                                  groups, out)
            if dw is not None:
                return dw
        if groups > 1 and cg == 1:
            return self._depthwise_backprop_filter(x, dy, filter_shape, strides, pads,
                                                   dilation, out)
        if groups == 1 and self._is_pointwise((kh, kw), strides, pads, dilation):
            dw = self._contiguous_out(out, filter_shape, dtype)
            xp.matmul(x.reshape(-1, c).T, dy.reshape(-1, cout), out=dw.reshape(c, cout))
            return self._finish(dw, out)
        geometry = ((kh, kw), strides, dilation, ow)
        blocks = self._conv_blocks(n, oh, ow * kh * kw * c * x.dtype.itemsize)
        largest = max((b[1] - b[0]) * (b[3] - b[2]) for b in blocks) * ow

        def run(part):                  # each block's product of its own
            buffer = xp.empty(largest * kh * kw * c, dtype=x.dtype)
            products = []
            for block, xpad, local in self._padded_blocks(x, pads, part):
                n0, n1, r0, r1 = block
                cols = self._im2col(xpad, local, geometry, groups, buffer)
                rows = cols.shape[1]
                dyb = dy[n0:n1, r0:r1].reshape(rows, groups, og).transpose(1, 0, 2)
                products.append(xp.matmul(cols.transpose(0, 2, 1), dyb))
            return products
        products = run(blocks)                  # summed in block order
        total = products[0]
        for product in products[1:]:
            total += product
        dw = self._contiguous_out(out, filter_shape, dtype)
        dw.reshape(kh, kw, cg, groups, og)[...] = \
            total.reshape(groups, kh, kw, cg, og).transpose(1, 2, 3, 0, 4)
        return self._finish(dw, out)

    # ----------------------------------------------------------------- depthwise
    # One input channel per group (depthwise convolutions): GEMMs of inner size kh*kw would
    # starve BLAS (1 GFLOP/s measured), so these are kh*kw broadcast multiply-adds over
    # blocks of a few samples. With a multiplier of 1 and unit width stride, a window's
    # (width, channel) axes are one contiguous run of the padded image, so each offset is an
    # elementwise op on (rows, width*C) with the taps tiled along the width: long inner
    # loops (3x faster than C-long ones). Otherwise the multiplier is a trailing axis.
    def _depthwise_layout(self, padded, cout, strides, dilation, out_hw):
        """(window of one offset as a function of (n0, n1, i, j), block shape per sample)."""
        c = padded.shape[3]
        (oh, ow), (sh, sw), (dh, dw) = out_hw, strides, dilation
        if cout == c and sw == 1:
            flat = padded.reshape(padded.shape[0], padded.shape[1], -1)

            def flat_window(n0, n1, i, j):
                return flat[n0:n1, _window(i * dh, oh, sh), j * dw * c:(j * dw + ow) * c]
            return flat_window, (oh, ow * c)

        def window(n0, n1, i, j):
            return padded[n0:n1, _window(i * dh, oh, sh), _window(j * dw, ow, sw), :, None]
        return window, (oh, ow, c, cout // c)

    def _depthwise_taps(self, w, block_shape):
        """The filter of each offset, shaped to multiply a block of that layout."""
        kh, kw, _, cout = w.shape
        if len(block_shape) == 2:                         # flat: taps tiled along the width
            reps = block_shape[1] // cout
            return [[self.xp.tile(w[i, j, 0], reps) for j in range(kw)] for i in range(kh)]
        taps = w.reshape(kh, kw, block_shape[2], block_shape[3])
        return [[taps[i, j] for j in range(kw)] for i in range(kh)]

    def _sample_blocks(self, n: int, sample_bytes: int):
        # Three block-sized arrays are live (window, product, sum), and smaller blocks
        # measured faster here: an eighth of the im2col budget.
        step = max(1, (_BLOCK_BYTES // 8) // max(sample_bytes, 1))
        return [(n0, min(n0 + step, n)) for n0 in range(0, n, step)]

    def _depthwise_conv2d(self, x, w, strides, pads, dilation, out):
        xp = self.xp
        n, kh, kw, cout = x.shape[0], w.shape[0], w.shape[1], w.shape[3]
        oh, ow = (conv_output_size(x.shape[1 + a], w.shape[a], strides[a], pads[a],
                                   dilation[a]) for a in range(2))
        y = self._contiguous_out(out, (n, oh, ow, cout), xp.result_type(x, w))
        xpad = xp.ascontiguousarray(self._pad_nhwc(x, pads))
        window, block_shape = self._depthwise_layout(xpad, cout, strides, dilation, (oh, ow))
        taps = self._depthwise_taps(w, block_shape)
        for n0, n1 in self._sample_blocks(n, oh * ow * cout * y.dtype.itemsize):
            acc = y[n0:n1].reshape((n1 - n0,) + block_shape)
            term = xp.empty_like(acc)
            for i in range(kh):
                for j in range(kw):
                    if i == j == 0:
                        xp.multiply(window(n0, n1, i, j), taps[i][j], out=acc)
                    else:
                        acc += xp.multiply(window(n0, n1, i, j), taps[i][j], out=term)
        return self._finish(y, out)

    def _depthwise_backprop_input(self, dy, w, input_shape, strides, pads, dilation, out):
        xp = self.xp
        n, h, wd, c = input_shape
        kh, kw, cout = w.shape[0], w.shape[1], w.shape[3]
        oh, ow = dy.shape[1:3]
        (top, bottom), (left, right) = pads
        dtype = xp.result_type(dy, w)
        dxpad = xp.zeros((n, h + top + bottom, wd + left + right, c), dtype=dtype)
        window, block_shape = self._depthwise_layout(dxpad, cout, strides, dilation, (oh, ow))
        taps = self._depthwise_taps(w, block_shape)
        for n0, n1 in self._sample_blocks(n, oh * ow * cout * dy.dtype.itemsize):
            grads = dy[n0:n1].reshape((n1 - n0,) + block_shape)
            term = xp.empty_like(grads)
            for i in range(kh):
                for j in range(kw):
                    xp.multiply(grads, taps[i][j], out=term)
                    target = window(n0, n1, i, j)
                    if len(block_shape) == 2:
                        target += term
                    else:                 # sum over the multiplier
                        target[..., 0] += term.sum(axis=-1)
        dx = out if out is not None else xp.empty(input_shape, dtype=dtype)
        return self._unpad_into(dxpad, pads, dx)

    def _depthwise_backprop_filter(self, x, dy, filter_shape, strides, pads, dilation, out):
        xp = self.xp
        n = x.shape[0]
        kh, kw, _, cout = filter_shape
        oh, ow = dy.shape[1:3]
        dtype = xp.result_type(x, dy)
        xpad = xp.ascontiguousarray(self._pad_nhwc(x, pads))
        window, block_shape = self._depthwise_layout(xpad, cout, strides, dilation, (oh, ow))
        # Row sums as GEMVs (much faster than .sum(axis=0)); a row holds ow*C (flat layout)
        # or C*multiplier (trailing-multiplier layout) products.
        width = block_shape[-1] if len(block_shape) == 2 else cout
        dw = xp.zeros((kh, kw, cout), dtype=dtype)
        for n0, n1 in self._sample_blocks(n, oh * ow * cout * dy.dtype.itemsize):
            grads = dy[n0:n1].reshape((n1 - n0,) + block_shape)
            term = xp.empty_like(grads)
            ones = xp.ones(term.size // width, dtype=dtype)
            for i in range(kh):
                for j in range(kw):
                    xp.multiply(window(n0, n1, i, j), grads, out=term)
                    dw[i, j] += (ones @ term.reshape(-1, width)).reshape(-1, cout).sum(axis=0)
        result = out if out is not None else xp.empty(filter_shape, dtype=dtype)
        result[...] = dw.reshape(filter_shape)
        return result
