"""Matrix products on oneDNN's matmul primitive: bfloat16 x bfloat16 with float32
accumulation, and int8 x int8 with exact int32 accumulation, where the CPU has the
instructions for them.

numpy has no 16-bit or 8-bit BLAS, so the numpy backend computes those products through the
float32 GEMM (half_precision.py widens bfloat16 operands; int8_matmul.py multiplies int8
values exactly as float32 while sums stay below 2**24). On a CPU with avx512_bf16 / AMX-BF16
and AVX512-VNNI / AVX-VNNI / AMX-INT8, oneDNN's native kernels do the same work 2-5x faster
(benchmarks/matmul_onednn.py):

* ``bf16_matmul``: bfloat16 operands, products and sums in float32 (as the widened float32
  GEMM), the result rounded once to nearest even into bfloat16 (or kept in float32 where the
  caller asks for it). The summation order is oneDNN's, so a result may differ from the
  widened OpenBLAS GEMM in the last bfloat16 bit (about 1 element in 10**4 measured on the
  MLP's shapes); it is the same kernel for every call of the same shapes.
* ``int8_matmul``: the exact int32 sums, equal to the reference (the float32-GEMM path)
  bit for bit. oneDNN on a CPU without VNNI/AMX sums pairs of int8 products in saturating
  int16 (``vpmaddubsw``), which is not exact: those CPUs keep the float32 path. oneDNN's
  s32 results are not exact beyond 2**24 (off by 1-2 near 5 * 10**7, where float32's
  spacing is 4: they pass through float32), so it runs contractions of at most
  :data:`EXACT_INT8_K` = 1024 terms (every partial sum within 2**24), the float32 path's
  own bound; longer ones run in chunks of 1024 added in int32, as there.

float32 products of at least 32 rows (``numpy_backend.MIN_ROWS``) and ``MIN_WORK``
multiply-adds go to :func:`sgemm` (oneDNN's ``dnnl_sgemm``, 157-174 GFLOP/s on the MLP's
shapes against 106 for the matmul primitive with plain layouts and 92 for one-threaded
OpenBLAS, which thread_policy.py holds at one thread); smaller ones stay on OpenBLAS, whose
batch-1 GEMV oneDNN does not beat. The matmul primitive with a bias and ReLU post-op
measured 1.16-1.31x faster than ``sgemm`` plus the in-place epilogue at batch 128-512 on a
quiet machine (0.95-1.06x beside the test suite), 0.7-0.97x at batch 32 and 0.3-0.5x at
batch 1 (benchmarks/dense_postops.py); without post-ops the primitive takes 0.99x the time
of ``sgemm`` over the MLP's 18 forward and backward GEMMs at batch 128 and 512, so the gain
is the epilogue's pass over the output (about 2% of the MLP's step). Dense layers keep
``sgemm`` and their epilogue: the post-op form exists only in graph mode
(``dense_bias_act``), and its GEMM is another kernel than eager's ``sgemm``, so graph mode
would no longer give eager's bits (the post-ops themselves do: bias and ReLU post-ops equal
the primitive's product followed by the separate add and ``y * (y > 0)``, bit for bit).

Eager and graph mode give the same bits because they reach the same kernel: ops call
``backend.matmul`` / ``backend.int8_matmul`` in both modes, and the choice here is a pure
function of the operands' shapes and dtypes (never of their strides, a buffer's address or
the mode). A primitive is made once per (shapes, strides, dtypes) and kept; operands with
dense rows or dense columns are described as they are (a transposed view costs no copy),
others are copied. Measured: the result's bits do not depend on the operands' layouts (C or
Fortran order, both operands, all shape classes above), so a graph plan that materializes a
transpose that eager mode passes as a view still gets eager's numbers
(tests/backend/test_dnnl_matmul.py checks it).

Each function returns None where oneDNN does not take the case (no library or
``LAMINA_ONEDNN=0``, another dtype, a shape it cannot express, a product too small to pay for
the call, an implementation that is oneDNN's reference code or not the native one): the
caller's numpy path then runs.
"""
from __future__ import annotations


import numpy

from . import dnnl_lib as dl

MIN_WORK = 1 << 18
"""Products with fewer multiply-adds (m * k * n) stay on the numpy path: a oneDNN call costs
about 9 us of ctypes and dispatch; measured break-even near 64 x 64 x 64."""

EXACT_INT8_K = 1024
"""The longest contraction oneDNN's int8 kernels sum exactly for any int8 operands: every
partial sum is then an integer of at most K * 2**14 = 2**24, exact in float32 too. (oneDNN
3.2's brgemm matmul returned s32 sums above 2**24 rounded, off by 1-2, at K = 2048-8192
under its AMX and VNNI kernels; with K <= 1024 every tested shape was exact under the AMX,
AVX512-VNNI and AVX2-VNNI kernels (``ONEDNN_MAX_CPU_ISA``), also where the VNNI kernels'
inputs shifted by 128 make sums past 2**24. The same bound as int8_matmul.py's EXACT_K.)"""

_FLAGS = None

_BF16 = "bfloat16"
_BF16_FLAGS = ("avx512_bf16", "amx_bf16")
_INT8_FLAGS = ("avx512_vnni", "avx_vnni", "amx_int8")
# Substrings of the implementation names of the native kernels (e.g. brg:avx512_core_amx,
# brg:avx512_core_bf16, brg:avx512_core_vnni); anything else (an emulation, ref:) is refused.
_NATIVE = {"bf16": ("amx", "bf16"), "int8": ("amx", "vnni"), "float32": ("",)}
_KINDS = {_BF16: "bf16", "int8": "int8", "float32": "float32"}
_RESULTS = {"bf16": (_BF16, "float32"), "int8": ("int32",), "float32": ("float32",)}


# --------------------------------------------------------------------------- the CPU
def cpu_flags() -> frozenset:
    """The CPU's feature flags from /proc/cpuinfo (empty where it cannot be read)."""
    global _FLAGS
    if _FLAGS is None:
        flags = set()
        try:
            with open("/proc/cpuinfo") as info:
                for line in info:
                    if line.startswith("flags"):
                        flags.update(line.split(":", 1)[1].split())
                        break
        except OSError:                               # pragma: no cover - not Linux
            pass
        _FLAGS = frozenset(flags)
    return _FLAGS


def native_bf16() -> bool:
    """Whether the CPU multiplies bfloat16 natively (avx512_bf16 or AMX-BF16)."""
    return any(f in cpu_flags() for f in _BF16_FLAGS)


def exact_int8() -> bool:
    """Whether oneDNN's int8 kernels accumulate exactly here (VNNI or AMX-INT8)."""
    return any(f in cpu_flags() for f in _INT8_FLAGS)


# --------------------------------------------------------------------------- entry points
def bf16_matmul(a, b, dtype, out=None):
    """``a @ b`` of two bfloat16 arrays into ``dtype`` (bfloat16 or float32), written into
    ``out`` when given; None where oneDNN does not take it."""
    dtype = numpy.dtype(dtype)
    if dtype.name not in (_BF16, "float32") or not native_bf16():
        return None
    return matmul(a, b, dtype, out, kind="bf16")


def int8_matmul(a, b, out=None):
    """The exact int32 ``a @ b`` of two int8 arrays (into ``out`` when given); None where
    oneDNN does not take it (then the float32-GEMM path of int8_matmul.py runs).

    A contraction longer than :data:`EXACT_INT8_K` runs in chunks of that length, each exact,
    added in int32 (as the float32 path does)."""
    if not exact_int8():
        return None
    k = a.shape[-1]
    int32 = numpy.dtype("int32")
    if k <= EXACT_INT8_K:
        return matmul(a, b, int32, out, kind="int8")
    if not _takes(a, b, int32, "int8") or a.size * b.shape[-1] < MIN_WORK:
        return None
    result = None
    for start in range(0, k, EXACT_INT8_K):
        stop = min(start + EXACT_INT8_K, k)
        part = matmul(a[..., start:stop], b[..., start:stop, :], int32, kind="int8",
                      min_work=0)
        if part is None:
            return None
        result = part if result is None else numpy.add(result, part, out=result)
    return dl.finish(result, out)


def matmul(a, b, dtype, out=None, kind=None, min_work=None):
    """numpy's ``matmul`` of ``a`` and ``b`` (one dtype) into ``dtype`` on oneDNN, for 2-D
    operands, an N-D ``a`` times a 2-D ``b`` (one product over the flattened rows) and 3-D
    stacks of one batch size; None where oneDNN does not take the case (products of fewer
    than ``min_work`` multiply-adds, :data:`MIN_WORK` by default, among them)."""
    dtype = numpy.dtype(dtype)
    if not _takes(a, b, dtype, kind):
        return None
    kind = _KINDS[a.dtype.name]
    min_work = MIN_WORK if min_work is None else min_work
    if b.ndim == 2:
        k, n = b.shape
        lead = a.shape[:-1]
        m = 1
        for d in lead:
            m *= d
        if a.shape[-1] != k or m * k * n < min_work or m == 0 or n == 0 or k == 0:
            return None
        flat = a if a.ndim == 2 else a.reshape(m, k)
        shape = lead + (n,)
        target = dl.target(out, shape, dtype)
        dst = target if target.ndim == 2 else target.reshape(m, n)
        if not _run(kind, flat, b, dst):
            return None
        return dl.finish(target, out)
    if a.ndim == 3 and b.ndim == 3 and a.shape[0] == b.shape[0] and a.shape[2] == b.shape[1]:
        batch, m, k = a.shape
        n = b.shape[2]
        if batch * m * k * n < min_work or 0 in (batch, m, k, n):
            return None
        target = dl.target(out, (batch, m, n), dtype)
        if not _run(kind, a, b, target):
            return None
        return dl.finish(target, out)
    return None


def sgemm(a, b, out=None):
    """``a @ b`` for float32 ``a`` (2-D, or N-D with C-contiguous rows: one product over
    the flattened rows) and 2-D ``b`` by oneDNN's ``dnnl_sgemm`` (row-major, its packed jit
    GEMM on the OpenMP threads: 157-174 GFLOP/s on the MLP's shapes here, where the matmul
    primitive with plain layouts reached 106 and one-threaded OpenBLAS 92). A transposed
    view goes in as is with the 'T' flag (the bits of a transposed copy, tested), any other
    layout as a copy, so whether oneDNN runs depends on shapes and dtypes only; None where
    it does not apply (no library, fewer than MIN_WORK multiply-adds)."""
    rt = dl.runtime()
    if rt is None or b.ndim != 2 or a.ndim < 2 or a.shape[-1] != b.shape[0] or \
            a.dtype != numpy.float32 or b.dtype != numpy.float32:
        return None
    k, n = b.shape
    m = a.size // k if k else 0
    if m * k * n < MIN_WORK or 0 in (m, n, k):
        return None
    shape = a.shape[:-1] + (n,)
    if a.ndim > 2:
        a = numpy.ascontiguousarray(a).reshape(m, k)
    (a, ta, lda), (b, tb, ldb) = _gemm_operand(a), _gemm_operand(b)
    target = dl.target(out, shape, numpy.float32)
    dl.use_threads(rt, m * n * k)
    status = rt.lib.dnnl_sgemm(ta, tb, m, n, k, 1.0, a.ctypes.data, lda, b.ctypes.data,
                               ldb, 0.0, target.ctypes.data, n)
    if status != dl.SUCCESS:
        return None
    return dl.finish(target, out)


def _gemm_operand(x):
    """(array, ``b'N'``/``b'T'``, leading dimension) of a 2-D float32 operand in row-major
    terms: C-contiguous rows as they are, a transposed view of them with 'T', anything else
    as a C-contiguous copy."""
    if x.flags.f_contiguous and not x.flags.c_contiguous:
        return x, b"T", max(x.shape[0], 1)
    x = numpy.ascontiguousarray(x)
    return x, b"N", max(x.shape[1], 1)


# --------------------------------------------------------------------------- internals
def _takes(a, b, dtype, kind) -> bool:
    """Whether the operands' types are ones oneDNN multiplies here into ``dtype``."""
    if not (isinstance(a, numpy.ndarray) and isinstance(b, numpy.ndarray)):
        return False
    if a.dtype != b.dtype or a.ndim < 2 or b.ndim < 2:
        return False
    own = _KINDS.get(a.dtype.name)
    return own is not None and (kind is None or kind == own) and \
        numpy.dtype(dtype).name in _RESULTS[own]


def _operand(x):
    """``(x, element strides)`` for oneDNN: ``x`` itself where its matrices are dense rows
    or dense columns (C order, or C order with the last two axes swapped: a transposed
    view), else a C-contiguous copy (the bits do not change). The strides are the canonical
    ones of that order: numpy calls an array with an axis of length 1 contiguous whatever
    that axis's stride, and oneDNN would take such a stride for a slice of a wider matrix,
    which only its older int8 GEMM (refused) handles."""
    if not x.flags.c_contiguous:
        swapped = x.swapaxes(-1, -2)
        if swapped.flags.c_contiguous:
            strides = list(dl.c_strides(swapped.shape))
            strides[-1], strides[-2] = strides[-2], strides[-1]
            return x, tuple(strides)
        x = numpy.ascontiguousarray(x)
    return x, dl.c_strides(x.shape)


def _run(kind, a, b, dst) -> bool:
    """``dst[...] = a @ b`` on oneDNN (``dst`` C-contiguous); False where refused."""
    rt = dl.runtime()
    if rt is None:
        return False
    (a, a_strides), (b, b_strides) = _operand(a), _operand(b)
    key = (kind, a.shape, a_strides, b.shape, b_strides, a.dtype.name, dst.dtype.name)
    primitive = dl.cached(key, lambda: _make(rt, kind, a.shape, a_strides, b.shape,
                                               b_strides, a.dtype, dst.dtype))
    if primitive is None:
        return False
    primitive(src=a, weights=b, dst=dst)
    return True


def _make(rt, kind, a_shape, a_strides, b_shape, b_strides, dtype, dst_dtype):
    dst_shape = tuple(a_shape[:-1]) + (b_shape[-1],)
    code = dl.data_type(dtype)
    src = dl.MemoryDesc(rt, a_shape, code, a_strides)
    wei = dl.MemoryDesc(rt, b_shape, code, b_strides)
    out = dl.MemoryDesc(rt, dst_shape, dl.data_type(dst_dtype), dl.c_strides(dst_shape))
    attr = dl.Attr(rt)
    pd = dl.PrimitiveDesc(rt, lambda h: rt.lib.dnnl_matmul_primitive_desc_create(
        h, rt.engine, src.handle, wei.handle, None, out.handle, attr.handle), "matmul")
    primitive = dl.Primitive(rt, pd, ("src", "weights", "dst"), numpy)
    if not any(part in primitive.implementation for part in _NATIVE[kind]):
        raise dl.DnnlError(f"oneDNN's {kind} matmul is not native here "
                           f"({primitive.implementation})")
    return primitive


def implementation(a_shape, b_shape, dtype, dst_dtype) -> str | None:
    """The name of the oneDNN kernel that C-contiguous operands of these shapes and dtype
    run (for benchmarks and tests), or None where oneDNN refuses them."""
    dtype, dst_dtype = numpy.dtype(dtype), numpy.dtype(dst_dtype)
    kind = _KINDS.get(dtype.name)
    rt = dl.runtime()
    if rt is None or kind is None:
        return None
    a_shape, b_shape = tuple(a_shape), tuple(b_shape)
    a_strides, b_strides = dl.c_strides(a_shape), dl.c_strides(b_shape)
    key = (kind, a_shape, a_strides, b_shape, b_strides, dtype.name, dst_dtype.name)
    primitive = dl.cached(key, lambda: _make(rt, kind, a_shape, a_strides, b_shape, b_strides,
                                           dtype, dst_dtype))
    return None if primitive is None else primitive.implementation
