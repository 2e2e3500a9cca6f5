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
    winograd = True                 # 3x3 stride-1 conv2d forward by Winograd F(2,3)

    def asarray(self, data, dtype: str | None = None):
        return numpy.asarray(data, dtype=dtype)

    def to_host(self, a):
        return numpy.asarray(a)

