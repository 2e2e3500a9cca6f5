"""bfloat16 elementwise arithmetic on oneDNN's binary primitive.

ml_dtypes' bfloat16 has no vector loops: numpy widens each operand to float32, computes and
rounds back (half_precision.py), 2.5-6 ms per op on a 64x32x32x32 activation, which made a
mixed_bfloat16 CNN step slower than float32 although its convolutions run on AMX. oneDNN's
binary primitive reads bfloat16, computes in float32 and rounds the result to nearest even
once: for +, -, * and / (each exactly rounded in float32) these are the bits of the widened
path, infinities and NaNs included (tested), except that a subnormal result (below 2**-126)
is zero: the AVX512-BF16 conversion flushes subnormals, as it does in the bfloat16
convolutions and matmuls. Not max/min or comparisons: oneDNN's do not
propagate NaN as numpy's do. A second operand may broadcast (oneDNN's ``src1``); where the
first one would, a commutative op swaps them.

``binary`` returns None where it does not apply (no library, other dtypes, a broadcast
first operand of a non-commutative op, small arrays): the widened path then runs.
"""
from __future__ import annotations

import numpy

from . import dnnl_lib as dl

ALGORITHMS = {"add": 0x1fff0, "multiply": 0x1fff1, "divide": 0x1fff4, "subtract": 0x1fff5}
_SWAPPED = {"add": "add", "multiply": "multiply"}
MIN_ELEMENTS = 1 << 12
"""Smaller results stay on the widened path (a oneDNN call costs a few microseconds)."""


def binary(fn, a, b, dtype, out=None):
    """``fn(a, b)`` of bfloat16 operands (arrays, or a number for ``b``) into a bfloat16
    array (``out`` where given); None where it does not apply."""
    rt = dl.runtime()
    if rt is None or fn not in ALGORITHMS or dtype.name != "bfloat16":
        return None
    if not isinstance(a, numpy.ndarray) or a.dtype != dtype:
        return None
    if not isinstance(b, numpy.ndarray):
        b = numpy.asarray(b, dtype=dtype)
    if b.dtype != dtype:
        return None
    shape = numpy.broadcast_shapes(a.shape, b.shape)
    if a.shape != shape:
        if fn not in _SWAPPED or b.shape != shape:
            return None
        a, b, fn = b, a, _SWAPPED[fn]
    size = 1
    for d in shape:
        size *= d
    if size < MIN_ELEMENTS or len(shape) > dl.MAX_NDIMS or len(shape) == 0:
        return None
    src1_shape = (1,) * (len(shape) - b.ndim) + tuple(b.shape)
    code = dl.data_type(dtype)
    key = ("binary", fn, shape, src1_shape, code)

    def make():
        src0 = dl.MemoryDesc(rt, shape, code, dl.c_strides(shape))
        src1 = dl.MemoryDesc(rt, src1_shape, code, dl.c_strides(src1_shape))
        dst = dl.MemoryDesc(rt, shape, code, dl.c_strides(shape))
        attr = dl.Attr(rt)
        pd = dl.PrimitiveDesc(rt, lambda h: rt.lib.dnnl_binary_primitive_desc_create(
            h, rt.engine, ALGORITHMS[fn], src0.handle, src1.handle, dst.handle, attr.handle),
            f"binary {fn}")
        return dl.Primitive(rt, pd, ("src", "src_1", "dst"), numpy, work=size)
    primitive = dl.cached(key, make)
    if primitive is None:
        return None
    result = dl.target(out, shape, dtype)
    primitive(src=numpy.ascontiguousarray(a), src_1=numpy.ascontiguousarray(b), dst=result)
    return dl.finish(result, out)
