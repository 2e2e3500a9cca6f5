"""Winograd F(2,3) for 3x3 stride-1 undilated ungrouped convolutions (NHWC, HWIO).

Each 2x2 output tile is ``Aᵀ [(G g Gᵀ) ⊙ (Bᵀ d Bᵀᵀ)] A`` of the 4x4 input tile ``d`` it
reads (tiles overlap by two rows and columns): 16 multiplications per tile and channel
pair instead of 36, i.e. 2.25x fewer. Over a block of samples the 16 elementwise products
are 16 GEMMs ``(tiles, C) @ (C, K)``, one batched matmul. The input transform is four
adds/subtracts of strided column views, then four of strided row views; the output
transform likewise. Blocks of samples keep the transformed input (16 x tiles x C) in cache.

The transforms only add, subtract and halve (the filter's 0.5 is exact), so the error is
a few ulps of the largest partial sums (tested against the direct convolution).
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

# Bytes of transformed input per block of samples (16 x tiles x C): measured best around the
# im2col budget.
_BLOCK_BYTES = 1 << 20


def _threads() -> int:
    """Threads for the block loop: the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:                      # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)

# Fewest input and output channels that take the Winograd path. Measured on the 2-core build
# machine, one thread, CPU time (benchmarks/winograd.py; float32/float64 direct/Winograd):
# 3->32 0.66/0.63, 16->16 1.00/1.15, 32->32 1.29/1.39, 64->64 1.35/1.54 (16x16) and
# 1.30/1.54 (8x8): the 16 small GEMMs need channels to amortise the transforms.
MIN_CHANNELS = 32

# Filter transform G (4x3): U = G g Gᵀ.
_G = ((1.0, 0.0, 0.0), (0.5, 0.5, 0.5), (0.5, -0.5, 0.5), (0.0, 0.0, 1.0))


def winograd_applies(x_shape, w_shape, strides, dilation, groups, dtype, itemsize) -> bool:
    """Whether F(2,3) is used: a 3x3 stride-1 undilated ungrouped float convolution whose
    channels make the 16 small GEMMs worth it (measured; see benchmarks/winograd.py)."""
    if tuple(w_shape[:2]) != (3, 3) or tuple(strides) != (1, 1) or tuple(dilation) != (1, 1):
        return False
    if groups != 1 or dtype.kind != "f" or itemsize < 4:
        return False
    return min(w_shape[2], w_shape[3]) >= MIN_CHANNELS


class WinogradConv:
    """Mixed into ConvKernels: ``_winograd_conv2d``, used by ``conv2d`` when ``winograd``
    is true (the numpy backend's default; set it False on an instance to turn it off)."""

    winograd = False

    def _winograd_filter(self, w):
        """``U[a, b] = (G g Gᵀ)[a, b]`` as (16, C, K)."""
        xp = self.xp
        g = xp.asarray(_G, dtype=w.dtype)
        u = xp.tensordot(g, w, axes=(1, 0))                         # (4, 3, C, K)
        u = xp.tensordot(g, u, axes=(1, 1)).transpose(1, 0, 2, 3)   # (4, 4, C, K)
        return xp.ascontiguousarray(u).reshape(16, w.shape[2], w.shape[3])

    def _winograd_conv2d(self, x, w, pads, y):
        """``y`` (C-contiguous, (N, OH, OW, K)) = conv2d(x, w) at stride 1 with ``pads``."""
        n, oh, ow, k = y.shape
        c = x.shape[3]
        th, tw = (oh + 1) // 2, (ow + 1) // 2
        (top, _), (left, _) = pads
        # Pad (or crop) so that the th x tw 4x4 tiles (stride 2) just fit: 2*th + 2 rows;
        # y's shape already says how many outputs the bottom and right pads make.
        hp, wp = 2 * th + 2, 2 * tw + 2
        xpad = self._pad_nhwc(x, ((top, hp - x.shape[1] - top), (left, wp - x.shape[2] - left)))
        u = self._winograd_filter(w.astype(y.dtype, copy=False))
        sample_bytes = 16 * th * tw * max(c, k) * y.dtype.itemsize
        step = max(1, _BLOCK_BYTES // sample_bytes)
        workers = min(_threads(), -(-n // step))
        if workers <= 1:
            self._winograd_blocks(xpad, u, y, 0, n, step)
            return y
        # Samples split between threads (numpy's adds and BLAS release the GIL); each
        # thread walks its share in cache-sized blocks with its own buffers.
        share = -(-n // workers)
        with ThreadPoolExecutor(workers) as pool:
            jobs = [pool.submit(self._winograd_blocks, xpad, u, y, lo, min(lo + share, n), step)
                    for lo in range(0, n, share)]
            for job in jobs:
                job.result()
        return y

    def _winograd_blocks(self, xpad, u, y, start, stop, step):
        """Samples ``start:stop`` of ``y``, ``step`` samples at a time."""
        xp = self.xp
        n, oh, ow, k = y.shape
        c = xpad.shape[3]
        th, tw = (oh + 1) // 2, (ow + 1) // 2
        hp = 2 * th + 2
        m_max = min(step, stop - start)
        cols_buf = xp.empty((4, m_max, hp, tw, c), dtype=y.dtype)
        v_buf = xp.empty((4, 4, m_max, th, tw, c), dtype=y.dtype)
        p_buf = xp.empty((16, m_max * th * tw, k), dtype=y.dtype)
        s_buf = xp.empty((2, 4, m_max, th, tw, k), dtype=y.dtype)
        y_buf = xp.empty((2, 2, m_max, th, tw, k), dtype=y.dtype)
        split_buf = xp.empty((m_max, hp, 2, tw + 1, c), dtype=y.dtype)
        even = oh % 2 == 0 and ow % 2 == 0
        for n0 in range(start, stop, step):
            n1 = min(n0 + step, stop)
            m = n1 - n0
            xb = xpad[n0:n1]
            # Even and odd columns apart (one copy), so that the column transform and then
            # the row transform are adds of long contiguous runs.
            split = split_buf[:m]
            split[...] = xb.reshape(m, hp, tw + 1, 2, c).transpose(0, 1, 3, 2, 4)
            even_cols, odd_cols = split[:, :, 0], split[:, :, 1]
            col = (even_cols[:, :, :tw], odd_cols[:, :, :tw], even_cols[:, :, 1:],
                   odd_cols[:, :, 1:])
            t = cols_buf[:, :m]
            xp.subtract(col[0], col[2], out=t[0])
            xp.add(col[1], col[2], out=t[1])
            xp.subtract(col[2], col[1], out=t[2])
            xp.subtract(col[1], col[3], out=t[3])
            row = [t[:, :, a:a + 2 * th:2] for a in range(4)]
            v = v_buf[:, :, :m]
            xp.subtract(row[0], row[2], out=v[0])
            xp.add(row[1], row[2], out=v[1])
            xp.subtract(row[2], row[1], out=v[2])
            xp.subtract(row[1], row[3], out=v[3])
            tiles = m * th * tw
            if m == m_max:
                vv = v_buf.reshape(16, tiles, c)
            else:
                vv = xp.ascontiguousarray(v).reshape(16, tiles, c)
            prod = xp.matmul(vv, u, out=p_buf[:, :tiles]).reshape(4, 4, m, th, tw, k)
            s = s_buf[:, :, :m]
            xp.add(prod[0], prod[1], out=s[0])
            s[0] += prod[2]
            xp.subtract(prod[1], prod[2], out=s[1])
            s[1] -= prod[3]
            # Rows, then columns, into contiguous tiles; one copy interleaves them into y.
            tiles_out = y_buf[:, :, :m]
            xp.add(s[:, 0], s[:, 1], out=tiles_out[:, 0])
            tiles_out[:, 0] += s[:, 2]
            xp.subtract(s[:, 1], s[:, 2], out=tiles_out[:, 1])
            tiles_out[:, 1] -= s[:, 3]
            interleaved = tiles_out.transpose(2, 3, 0, 4, 1, 5)
            if even:
                y[n0:n1].reshape(m, th, 2, tw, 2, k)[...] = interleaved
            else:
                y[n0:n1] = interleaved.reshape(m, 2 * th, 2 * tw, k)[:, :oh, :ow]
        return y
