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
* ``int8_matmul``: the exact int32 sums. oneDNN on a CPU without VNNI/AMX sums pairs of
  int8 products in saturating int16 (``vpmaddubsw``), which is not exact: those CPUs keep
  the float32 path. With VNNI, oneDNN shifts signed inputs by 128 and subtracts a
  compensation in int32; every partial sum stays below 2**31 for K <= 2**16
  (:data:`EXACT_INT8_K`), so the result equals the reference bit for bit.

float32 stays on OpenBLAS: measured on the MLP's shapes (784-512-512-10, batch 128 forward,
both backward GEMMs, batch-1 predict) oneDNN's float32 matmul is 0.3-1.0x OpenBLAS's speed
(see the module's benchmark); :func:`matmul` still accepts float32 for that measurement.

Eager and graph mode give the same bits because they reach the same kernel: ops call
``backend.matmul`` / ``backend.int8_matmul`` in both modes, and the choice here is a pure
function of the operands' shapes and dtypes (never of their strides, a buffer's address or
the mode). A primitive is made once per (shapes, strides, dtypes) and kept; operands are
described with their strides as they are (a transposed view costs no copy). Measured: the
result's bits do not depend on the operands' layouts (C or Fortran order, both operands, all
shape classes above), so a graph plan that materializes a transpose that eager mode passes as
a view still gets eager's numbers (tests/backend/test_dnnl_matmul.py checks it).

Each function returns None where oneDNN does not take the case (no library or
``LAMINA_ONEDNN=0``, another dtype, a shape it cannot express, a product too small to pay for
the call, an implementation that is oneDNN's reference code or not the native one): the
caller's numpy path then runs.
"""
from __future__ import annotations

import threading

import numpy

from . import dnnl_lib as dl

MIN_WORK = 1 << 18
"""Products with fewer multiply-adds (m * k * n) stay on the numpy path: a oneDNN call costs
about 9 us of ctypes and dispatch; measured break-even near 64 x 64 x 64."""

EXACT_INT8_K = 1 << 16
"""The longest contraction that oneDNN's int8 kernels sum exactly for any int8 operands:
the VNNI path's shifted sums reach K * 255 * 128 < 2**31."""

MAX_CACHED = 512
"""Primitives kept; beyond that the cache starts over (a primitive made again computes the
same bits: the choice of kernel depends only on the key)."""

_CACHE: dict = {}
_CACHE_LOCK = threading.Lock()
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
    oneDNN does not take it (then the float32-GEMM path of int8_matmul.py runs)."""
    if a.shape[-1] > EXACT_INT8_K or not exact_int8():
        return None
    return matmul(a, b, numpy.dtype("int32"), out, kind="int8")


def matmul(a, b, dtype, out=None, kind=None):
    """numpy's ``matmul`` of ``a`` and ``b`` (one dtype) into ``dtype`` on oneDNN, for 2-D
    operands, an N-D ``a`` times a 2-D ``b`` (one product over the flattened rows) and 3-D
    stacks of one batch size; None where oneDNN does not take the case."""
    if not (isinstance(a, numpy.ndarray) and isinstance(b, numpy.ndarray)):
        return None
    if a.dtype != b.dtype or a.ndim < 2 or b.ndim < 2:
        return None
    own = _KINDS.get(a.dtype.name)
    dtype = numpy.dtype(dtype)
    if own is None or (kind is not None and kind != own) or \
            dtype.name not in _RESULTS[own]:
        return None
    kind = own
    if b.ndim == 2:
        k, n = b.shape
        lead = a.shape[:-1]
        m = 1
        for d in lead:
            m *= d
        if a.shape[-1] != k or m * k * n < MIN_WORK or m == 0 or n == 0 or k == 0:
            return None
        flat = a if a.ndim == 2 else a.reshape(m, k)
        shape = lead + (n,)
        target = _target(out, shape, dtype)
        dst = target if target.ndim == 2 else target.reshape(m, n)
        if not _run(kind, _operand(flat), _operand(b), dst):
            return None
        return _finish(target, out)
    if a.ndim == 3 and b.ndim == 3 and a.shape[0] == b.shape[0] and a.shape[2] == b.shape[1]:
        batch, m, k = a.shape
        n = b.shape[2]
        if batch * m * k * n < MIN_WORK or 0 in (batch, m, k, n):
            return None
        target = _target(out, (batch, m, n), dtype)
        if not _run(kind, _operand(a), _operand(b), target):
            return None
        return _finish(target, out)
    return None


def clear_cache() -> None:
    with _CACHE_LOCK:
        _CACHE.clear()


# --------------------------------------------------------------------------- internals
def _operand(x):
    """``x`` itself where each matrix has a unit stride along one of its two axes and no
    negative or zero strides; otherwise a C-contiguous copy (the bits do not change)."""
    strides = x.strides
    item = x.itemsize
    if (all(s > 0 and s % item == 0 for s in strides)
            and (strides[-1] == item or strides[-2] == item)):
        return x
    return numpy.ascontiguousarray(x)


def _target(out, shape, dtype):
    """``out`` where oneDNN can write into it (C-contiguous, the dtype), else a new array."""
    if (out is not None and out.dtype == dtype and tuple(out.shape) == tuple(shape)
            and out.flags.c_contiguous):
        return out
    return numpy.empty(shape, dtype=dtype)


def _finish(y, out):
    if out is None or out is y:
        return y
    numpy.copyto(out, y, casting="unsafe")
    return out


def _run(kind, a, b, dst) -> bool:
    rt = dl.runtime()
    if rt is None:
        return False
    key = (kind, a.shape, dl.element_strides(a), b.shape, dl.element_strides(b),
           a.dtype.name, dst.dtype.name)
    primitive = _CACHE.get(key, False)
    if primitive is False:
        primitive = _cached(key, lambda: _make(rt, kind, a, b, dst))
    if primitive is None:
        return False
    primitive(src=a, weights=b, dst=dst)
    return True


def _cached(key, make):
    with _CACHE_LOCK:
        if key not in _CACHE:
            if len(_CACHE) >= MAX_CACHED:
                _CACHE.clear()
            try:
                _CACHE[key] = make()
            except dl.DnnlError:
                _CACHE[key] = None
        return _CACHE[key]


def _make(rt, kind, a, b, dst):
    src = dl.MemoryDesc(rt, a.shape, dl.data_type(a.dtype), dl.element_strides(a))
    wei = dl.MemoryDesc(rt, b.shape, dl.data_type(b.dtype), dl.element_strides(b))
    out = dl.MemoryDesc(rt, dst.shape, dl.data_type(dst.dtype), dl.element_strides(dst))
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
    would run (for benchmarks and tests), or None where refused."""
    a = numpy.empty(a_shape, dtype)
    b = numpy.empty(b_shape, dtype)
    dst_shape = tuple(a_shape[:-1]) + (b_shape[-1],)
    kind = _KINDS.get(numpy.dtype(dtype).name)
    rt = dl.runtime()
    if rt is None or kind is None:
        return None
    dst = numpy.empty(dst_shape, dst_dtype)
    key = (kind, a.shape, dl.element_strides(a), b.shape, dl.element_strides(b),
           a.dtype.name, dst.dtype.name)
    primitive = _cached(key, lambda: _make(rt, kind, a, b, dst))
    return None if primitive is None else primitive.implementation
