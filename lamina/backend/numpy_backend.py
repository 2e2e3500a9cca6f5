"""The CPU backend: numpy and its BLAS."""
from __future__ import annotations

import numpy

from .base import Backend
from .half_precision import HalfPrecisionCompute


class NumpyBackend(HalfPrecisionCompute, Backend):
    name = "numpy"
    device = "cpu"
    xp = numpy
    host_arrays = True              # capabilities: see Backend
    fuses_elementwise = False
    sums_by_matmul = True
    atomic_scatter_add = False
    # 3x3 stride-1 conv2d forward by Winograd F(2,3): off until it measures faster with
    # multi-threaded BLAS (benchmarks/winograd.py: 1.27-1.39x one-threaded, 0.76-1.00x
    # on 2 cores with default threads); set backend.winograd = True to use it.
    winograd = False

    def asarray(self, data, dtype: str | None = None):
        return numpy.asarray(data, dtype=dtype)

    def to_host(self, a):
        return numpy.asarray(a)

