"""Exact int8 x int8 -> int32 matrix products through the float32 GEMM.

numpy's integer matmul has no BLAS (measured 22-337x slower than float32), and cupy's
runs outside cuBLAS. An int8 product is at most 128 * 128 = 2**14 in size, so a dot
product over K terms stays within 2**24 -- where every integer is a float32 -- when
K <= 2**24 / 2**14 = 1024: the float32 GEMM of the operands cast to float32 is then
exact whatever order BLAS sums in, since every partial sum is an integer of at most
2**24 too. A longer K runs in chunks of at most 1024, each exact, added in int32.
(Keras's bound for its abs-max values in [-127, 127] is K * 127**2 < 2**24, K <= 1040;
1024 also covers -128.)

The cast of the kernel is the price of the GEMM: ~0.15 ms per million int8 weights per
call, which is what batch-1 int8 inference pays over float32 on the CPU.
"""
from __future__ import annotations

from . import dnnl_matmul

EXACT_K = 1024
"""The longest contraction one float32 GEMM computes exactly for any int8 operands."""


class Int8MatmulKernels:
    """``int8_matmul``: numpy matmul semantics (operands of rank >= 2, broadcast batch
    axes) on int8 arrays, giving the exact int32 result."""

    def int8_matmul(self, a, b, out=None):
        if self.onednn:
            # oneDNN's s8 x s8 -> s32 GEMM where it is exact (VNNI/AMX; dnnl_matmul.py)
            result = dnnl_matmul.int8_matmul(a, b, out)
            if result is not None:
                return result
        xp = self.xp
        a32 = a.astype(xp.float32)
        b32 = b.astype(xp.float32)
        k = a.shape[-1]
        if k <= EXACT_K:
            result = self.matmul(a32, b32).astype(xp.int32)
        else:
            result = None
            for start in range(0, k, EXACT_K):
                stop = min(start + EXACT_K, k)
                part = self.matmul(a32[..., start:stop], b32[..., start:stop, :])
                part = part.astype(xp.int32)
                result = part if result is None else xp.add(result, part, out=result)
        if out is None:
            return result
        out[...] = result
        return out
