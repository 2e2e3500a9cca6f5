"""The CPU backend: numpy and its BLAS."""
from __future__ import annotations

import warnings

import numpy

from . import dnnl_lib, dnnl_matmul, numba_chain
from .base import Backend
from .dnnl_conv import DnnlConv
from .dnnl_pool import DnnlPool
from .half_precision import HalfPrecisionCompute


_FLOAT32 = numpy.dtype("float32")
MIN_ROWS = 32
"""float32 products with fewer rows stay on OpenBLAS: oneDNN packs the right-hand matrix on
every call, which a batch-1 predict's GEMV never earns back (4-5x slower measured)."""


class NumpyBackend(HalfPrecisionCompute, DnnlConv, DnnlPool, Backend):
    name = "numpy"
    device = "cpu"
    xp = numpy
    host_arrays = True              # capabilities: see Backend
    fuses_elementwise = False
    sums_by_matmul = True
    atomic_scatter_add = False
    onednn = True                   # where the library loads (dnnl_lib.py)
    # 3x3 stride-1 conv2d forward by Winograd F(2,3): off until it measures faster with
    # multi-threaded BLAS (benchmarks/winograd.py: 1.27-1.39x one-threaded, 0.76-1.00x
    # on 2 cores with default threads); set backend.winograd = True to use it.
    winograd = False
    # elementwise_chain as one numba ufunc (extra ``numba``; backend/numba_chain.py): on
    # where numba can be imported; set backend.compiled_chains = False before tracing to
    # run chains unfused.
    compiled_chains = numba_chain.available()

    def __init__(self):
        # oneDNN loads before any kernel runs: its thread policy (thread_policy.py) holds
        # OpenBLAS at one thread, and every GEMM of the process must see the same count.
        if self.onednn:
            dnnl_lib.runtime()

    def prepare_kernel(self, forward, specs) -> None:
        """Run ``forward`` inside ``dnnl_lib.preparing()`` on unwritten arrays of ``specs``
        (``numpy.empty``: no page is touched): the kernel's first ``dnnl_lib.cached`` call
        makes its primitive and ends the call. A kernel that refuses the case before asking
        (its numpy fallback then runs once on the unwritten arrays, warnings silenced) or
        fails costs only this call: the plan's first run meets the same case for real."""
        if not self.onednn or dnnl_lib.runtime() is None:
            return
        arrays = [self.empty(shape, dtype) for shape, dtype in specs]
        with warnings.catch_warnings(), numpy.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                with dnnl_lib.preparing():
                    forward(*arrays)
            except Exception:        # noqa: BLE001 -- see the docstring
                pass

    def matmul(self, a, b, out=None):
        """float32 products of at least dnnl_matmul.MIN_WORK multiply-adds and MIN_ROWS
        rows on oneDNN (its
        threads: OpenBLAS runs one thread beside it, thread_policy.py), by a rule of shapes
        and dtypes only, so eager mode and a plan's bound kernel take the same one."""
        if (self.onednn and a.dtype == _FLOAT32 and b.dtype == _FLOAT32
                and (out is None or out.dtype == _FLOAT32) and a.ndim >= 2
                and (a.size // max(a.shape[-1], 1) if b.ndim == 2 else a.shape[-2])
                >= MIN_ROWS):
            y = (dnnl_matmul.sgemm(a, b, out) if b.ndim == 2 else
                 dnnl_matmul.matmul(a, b, _FLOAT32, out))
            if y is not None:
                return y
        return super().matmul(a, b, out=out)

    def bound_matmul(self, *dtypes: str, rows=None):
        kernel = super().bound_matmul(*dtypes, rows=rows)
        if kernel is not None and self.onednn and dnnl_lib.runtime() is not None and (
                rows is None or rows >= MIN_ROWS):
            return self.matmul                  # the same rule as eager calls
        return kernel          # fewer rows: matmul's rule keeps them on this kernel

    def compiles_chain(self, program=None) -> bool:
        return super().compiles_chain(program) or (
            self.compiled_chains and (program is None or numba_chain.compiles(program)))

    def bound_chain(self, program, dtype: str, out=None):
        """A plan step's compiled chain (``numba_chain.BoundChain``), or None where the
        program does not compile (the op's forward then runs)."""
        if not (self.compiled_chains and dtype in numba_chain.DTYPES
                and numba_chain.compiles(program)):
            return None

        def step_by_step(inputs, out):
            return Backend.elementwise_chain(self, program, inputs, out)
        return numba_chain.BoundChain(program, out, step_by_step)

    def elementwise_chain(self, program, inputs, out=None):
        """The program as one numba ufunc where it compiles (float32/float64 inputs of one
        dtype, exactly rounded steps); otherwise step by step."""
        dtype = inputs[0].dtype
        if (self.compiled_chains and dtype.name in numba_chain.DTYPES
                and all(a.dtype == dtype for a in inputs)
                and (out is None or out.dtype == dtype) and numba_chain.compiles(program)):
            result = numba_chain.run(program, inputs, out)
            if result is not None:
                return result
        return super().elementwise_chain(program, inputs, out)

    def asarray(self, data, dtype: str | None = None):
        return numpy.asarray(data, dtype=dtype)

    def to_host(self, a):
        return numpy.asarray(a)

