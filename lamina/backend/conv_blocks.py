"""The block machinery of the im2col convolutions (conv.py): padding, blocks of samples
or output rows sized for the column buffer, the im2col copy and col2im scatter of one
block.
"""
from __future__ import annotations

# Bytes of column buffer per block. 2-3 MiB measured best here (1 MiB L2 per core, two
# cores); blocks of 8+ samples at 32x32x32 (9 MiB) fell back to the unblocked speed.
_BLOCK_BYTES = 5 << 19


def conv_output_size(size: int, k: int, stride: int, pad: tuple, dilation: int) -> int:
    """Output length of a convolution along one axis with explicit (before, after) pads."""
    span = (k - 1) * dilation + 1
    return (size + pad[0] + pad[1] - span) // stride + 1


def _window(start: int, count: int, step: int) -> slice:
    """``count`` positions from ``start`` every ``step``: a slice that never over-runs."""
    return slice(start, start + (count - 1) * step + 1, step)



class ConvBlocks:
    """Mixed into ConvKernels: padding helpers and the im2col blocks."""

    # ----------------------------------------------------------------- padding helpers
    def _pad_nhwc(self, x, pads, value=0):
        """``x`` padded (or, for negative pads, cropped) on its two spatial axes."""
        (top, bottom), (left, right) = pads
        if top == bottom == left == right == 0:
            return x
        n, h, w, c = x.shape
        out = self.xp.full((n, h + top + bottom, w + left + right, c), value, dtype=x.dtype)
        (h_src, h_dst), (w_src, w_dst) = _overlap(h, top, bottom), _overlap(w, left, right)
        out[:, h_dst, w_dst] = x[:, h_src, w_src]
        return out

    def _unpad_into(self, padded, pads, out):
        """The inverse of ``_pad_nhwc`` for gradients: crop ``padded`` into ``out``."""
        (top, bottom), (left, right) = pads
        h, w = out.shape[1], out.shape[2]
        (h_src, h_dst), (w_src, w_dst) = _overlap(h, top, bottom), _overlap(w, left, right)
        if top < 0 or bottom < 0 or left < 0 or right < 0:
            out[...] = 0                  # input rows a negative pad cropped get no gradient
        out[:, h_src, w_src] = padded[:, h_dst, w_dst]
        return out

    def _contiguous_out(self, out, shape, dtype, zero=False):
        """A C-contiguous buffer to compute into (``out`` itself when it qualifies)."""
        if out is not None and out.flags.c_contiguous:
            if zero:
                out[...] = 0
            return out
        return (self.xp.zeros if zero else self.xp.empty)(shape, dtype=dtype)

    def _zeros_into(self, out, shape, dtype):
        if out is None:
            return self.xp.zeros(shape, dtype=dtype)
        out[...] = 0
        return out

    def _finish(self, result, out):
        if out is None or result is out:
            return result
        out[...] = result
        return out

    # ----------------------------------------------------------------- im2col blocks
    def _conv_blocks(self, n: int, oh: int, row_bytes: int):
        """(n0, n1, r0, r1) blocks of samples x output rows sized for the column buffer."""
        sample_bytes = max(oh * row_bytes, 1)
        if sample_bytes <= _BLOCK_BYTES:
            step = max(1, _BLOCK_BYTES // sample_bytes)
            return [(n0, min(n0 + step, n), 0, oh) for n0 in range(0, n, step)]
        rows = max(1, _BLOCK_BYTES // max(row_bytes, 1))
        return [(n0, n0 + 1, r0, min(r0 + rows, oh))
                for n0 in range(n) for r0 in range(0, oh, rows)]

    def _padded_blocks(self, x, pads, blocks):
        """``(block, xpad, local)`` per block: ``xpad`` holds the block's samples padded and
        ``local`` is the block's place in it. The samples are padded one block at a time
        into one reused buffer, whose borders stay zero, not as a padded copy of the whole
        batch (9 MiB for 64x32x32x32 float32, more than the column buffer)."""
        (top, bottom), (left, right) = pads
        if top == bottom == left == right == 0:
            for block in blocks:
                yield block, x, block
            return
        n, h, w, c = x.shape
        most = max(n1 - n0 for n0, n1, _, _ in blocks)
        buffer = self.xp.zeros((most, h + top + bottom, w + left + right, c), dtype=x.dtype)
        (h_src, h_dst), (w_src, w_dst) = _overlap(h, top, bottom), _overlap(w, left, right)
        filled = None
        for block in blocks:
            n0, n1, r0, r1 = block
            xpad = buffer[:n1 - n0]
            if filled != (n0, n1):
                xpad[:, h_dst, w_dst] = x[n0:n1, h_src, w_src]
                filled = (n0, n1)
            yield block, xpad, (0, n1 - n0, r0, r1)

    def _im2col(self, xpad, block, geometry, groups, buffer):
        """Columns of one block: ``(groups, rows, kh*kw*C/groups)``, group-major.

        One copy from a strided window view: its innermost (kw, C) axes are one contiguous
        run of the padded image when the width dilation is 1, so the copy moves kw*C
        elements per step instead of C (the copy is a third of a convolution's time).
        """
        (n0, n1, r0, r1) = block
        (kh, kw), (sh, sw), (dh, dw), ow = geometry
        m, r, c = n1 - n0, r1 - r0, xpad.shape[3]
        cg = c // groups
        sn, sr, sc, sch = xpad.strides
        origin = xpad[n0:n1, r0 * sh:]
        cols = buffer[:groups * m * r * ow * kh * kw * cg].reshape(
            groups, m, r, ow, kh, kw, cg)
        shape = (m, r, ow, kh, kw, groups, cg)
        strides = (sn, sh * sr, sw * sc, dh * sr, dw * sc, cg * sch, sch)
        windows = self.xp.lib.stride_tricks.as_strided(origin, shape=shape, strides=strides)
        cols[...] = windows.transpose(5, 0, 1, 2, 3, 4, 6)
        return cols.reshape(groups, m * r * ow, kh * kw * cg)

    def _col2im_add(self, dxpad, dcols, block, geometry, groups):
        """Scatter-add one block's column gradient ``(groups, rows, kh*kw*cg)`` into dxpad."""
        (n0, n1, r0, r1) = block
        (kh, kw), (sh, sw), (dh, dw), ow = geometry
        m, r, c = n1 - n0, r1 - r0, dxpad.shape[3]
        cg = c // groups
        dcols = dcols.reshape(groups, m, r, ow, kh, kw, cg)
        # Split the channels on the whole (contiguous) buffer, so the views below are views.
        dxpad = dxpad.reshape(dxpad.shape[:3] + (groups, cg))
        for i in range(kh):
            rows = _window(r0 * sh + i * dh, r, sh)
            for j in range(kw):
                dst = dxpad[n0:n1, rows, _window(j * dw, ow, sw)]
                if groups == 1:
                    dst[:, :, :, 0] += dcols[0, :, :, :, i, j]
                else:
                    dst += dcols[:, :, :, :, i, j].transpose(1, 2, 3, 0, 4)

    @staticmethod
    def _is_pointwise(kernel_hw, strides, pads, dilation) -> bool:
        return kernel_hw == (1, 1) and strides == (1, 1) and pads == ((0, 0), (0, 0))


def _overlap(size: int, before: int, after: int) -> tuple[slice, slice]:
    """Matching (unpadded, padded) slices of an axis padded by (before, after)."""
    start, stop = max(-before, 0), size - max(-after, 0)
    return slice(start, stop), slice(max(before, 0), max(before, 0) + stop - start)
