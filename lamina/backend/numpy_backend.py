"""The CPU backend: numpy and its BLAS."""
from __future__ import annotations

import numpy

from .base import Backend


class NumpyBackend(Backend):
    name = "numpy"
    device = "cpu"
    xp = numpy

    def asarray(self, data, dtype: str | None = None):
        return numpy.asarray(data, dtype=dtype)

    def to_host(self, a):
        return numpy.asarray(a)

    def matmul(self, a, b, out=None):
        # numpy has no float16 BLAS (its half-precision matmul is a slow scalar loop): take
        # float32 products and sums and round once, as a GPU's float16 GEMM accumulates in
        # float32. Mixed precision's float16 layers then cost about what float32 ones do.
        if a.dtype == numpy.float16 and b.dtype == numpy.float16:
            product = super().matmul(a.astype(numpy.float32), b.astype(numpy.float32))
            if out is None:
                return product.astype(numpy.float16)
            numpy.copyto(out, product, casting="unsafe")
            return out
        return super().matmul(a, b, out=out)
