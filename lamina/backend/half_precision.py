"""16-bit floats on the CPU: computed in float32, stored in 16 bits.

numpy has no float16 or bfloat16 BLAS: its half-precision matmul is a scalar loop, 62-467x
slower than float32, and ml_dtypes' bfloat16 sums run element by element too. The CPU
backend therefore widens 16-bit operands of contractions (matmul, the convolutions) and of
float reductions to float32, computes there and rounds the result once, as a GPU's
half-precision GEMM accumulates in float32. Mixed precision then costs about what float32
does, and the values are at least as accurate as a native 16-bit loop.

bfloat16 comes from ``ml_dtypes`` (an optional dependency: ``pip install lamina[bfloat16]``);
importing it registers the ``"bfloat16"`` dtype name with numpy.
"""
from __future__ import annotations

import numpy

from ..dtypes import standardize
from . import dnnl_binary, dnnl_matmul
from .conv_blocks import conv_output_size

try:                                   # registers numpy.dtype("bfloat16")
    import ml_dtypes
except ImportError:                    # pragma: no cover - depends on the environment
    ml_dtypes = None

HALF_DTYPES = ("float16", "bfloat16")
_FLOAT32 = numpy.dtype("float32")
# dtype objects, compared by identity first: ``dtype.name`` builds a string on every call
_BFLOAT16 = numpy.dtype(ml_dtypes.bfloat16) if ml_dtypes is not None else None
_HALF = tuple(d for d in (numpy.dtype("float16"), _BFLOAT16) if d is not None)
_BOOL = numpy.dtype(bool)


def _is_half(a) -> bool:
    return a.dtype in _HALF


# Ops whose float32 result, rounded once to bfloat16, is what ml_dtypes computes: the
# correctly rounded IEEE operations and the exact ones.
_EXACT_IN_FLOAT32 = frozenset({
    "add", "subtract", "multiply", "divide", "maximum", "minimum", "equal", "not_equal",
    "less", "less_equal", "greater", "greater_equal"})
_COMPARISONS = frozenset({"equal", "not_equal", "less", "less_equal", "greater",
                          "greater_equal"})


def _is_bfloat16(a) -> bool:
    return _BFLOAT16 is not None and getattr(a, "dtype", None) == _BFLOAT16


def _widen(a):
    return a.astype(_FLOAT32) if isinstance(a, numpy.ndarray) and (
        a.dtype == _BFLOAT16 or a.dtype == _BOOL) else a


def _copy_into(out, result):
    numpy.copyto(out, result, casting="unsafe")
    return out


def _round_into(result, dtype, out):
    """``result`` (float32) rounded to ``dtype``, written into ``out`` when given."""
    if out is None:
        return result.astype(dtype)
    numpy.copyto(out, result, casting="unsafe")
    return out


class HalfPrecisionCompute:
    """Mixed into the numpy backend: 16-bit contractions and reductions run in float32."""

    def matmul(self, a, b, out=None):
        if _is_half(a) or _is_half(b):
            dtype = (out.dtype if out is not None
                     else numpy.result_type(a.dtype, b.dtype) if a.dtype == b.dtype
                     else a.dtype if _is_half(a) else b.dtype)
            if self.onednn and a.dtype == _BFLOAT16 and b.dtype == _BFLOAT16:
                # oneDNN's native bfloat16 GEMM, float32 sums rounded once (dnnl_matmul.py)
                result = dnnl_matmul.bf16_matmul(a, b, dtype, out)
                if result is not None:
                    return result
            result = super().matmul(a.astype(_FLOAT32), b.astype(_FLOAT32))
            return _round_into(result, dtype, out)
        return super().matmul(a, b, out=out)

    def bound_matmul(self, *dtypes: str, rows=None):
        return None if any(d in HALF_DTYPES for d in dtypes) else \
            super().bound_matmul(rows=rows)

    def bound_binary(self, fn: str, *dtypes: str):
        return None if any(d in HALF_DTYPES or d == "bool" for d in dtypes) else \
            super().bound_binary(fn)

    def _widened(self, method: str, first, second, *args, out=None):
        if not (_is_half(first) or _is_half(second)):
            return getattr(super(), method)(first, second, *args, out=out)
        dtype = first.dtype if _is_half(first) else second.dtype
        result = getattr(super(), method)(first.astype(_FLOAT32), second.astype(_FLOAT32),
                                          *args)
        return _round_into(result, dtype, out)

    # bfloat16 convolutions run natively on oneDNN (float32 accumulation, one rounding;
    # jit:avx512_core_bf16 / AMX where the CPU has them), else widened to float32.
    def _native_bf16(self, first, second) -> bool:
        return self.onednn and first.dtype == _BFLOAT16 and second.dtype == _BFLOAT16

    def conv2d(self, x, w, strides, pads, dilation, groups, out=None):
        if self._native_bf16(x, w):
            oh, ow = (conv_output_size(x.shape[1 + a], w.shape[a], strides[a], pads[a],
                                       dilation[a]) for a in range(2))
            y = self.dnnl_conv(x, w, (x.shape[0], oh, ow, w.shape[3]), strides, pads,
                                 dilation, groups, out)
            if y is not None:
                return y
        return self._widened("conv2d", x, w, strides, pads, dilation, groups, out=out)

    def conv2d_backprop_input(self, dy, w, input_shape, strides, pads, dilation, groups,
                              out=None):
        if self._native_bf16(dy, w):
            dx = self.dnnl_conv_backprop_input(dy, w, input_shape, strides, pads,
                                                 dilation, groups, out)
            if dx is not None:
                return dx
        return self._widened("conv2d_backprop_input", dy, w, input_shape, strides, pads,
                             dilation, groups, out=out)

    def conv2d_backprop_filter(self, x, dy, filter_shape, strides, pads, dilation, groups,
                               out=None):
        if self._native_bf16(x, dy):
            dw = self.dnnl_conv_backprop_filter(x, dy, filter_shape, strides, pads,
                                                  dilation, groups, out)
            if dw is not None:
                return dw
        return self._widened("conv2d_backprop_filter", x, dy, filter_shape, strides, pads,
                             dilation, groups, out=out)

    def binary(self, fn: str, a, b, out=None):
        """bfloat16 elementwise arithmetic and comparisons through float32: ml_dtypes'
        bfloat16 ufuncs widen each element to float32, compute and round to nearest even
        one element at a time; widening whole arrays, computing with numpy's float32 loops
        and rounding once gives the same bits, about twice as fast."""
        if fn in _EXACT_IN_FLOAT32 and (_is_bfloat16(a) or _is_bfloat16(b)):
            dtype = numpy.result_type(a, b)
            if dtype == _BFLOAT16 and self.onednn and fn in dnnl_binary.ALGORITHMS:
                # oneDNN's vector loops: the same bits (dnnl_binary.py)
                result = dnnl_binary.binary(fn, a, b, _BFLOAT16, out)
                if result is not None:
                    return result
            if dtype == _BFLOAT16:
                result = getattr(numpy, fn)(_widen(a), _widen(b))
                if fn in _COMPARISONS:
                    return result if out is None else _copy_into(out, result)
                return _round_into(result, dtype, out)
        return super().binary(fn, a, b, out=out)

    def reduce(self, fn: str, x, axis, keepdims: bool, out=None):
        if fn in ("sum", "mean", "prod") and _is_half(x):
            result = super().reduce(fn, x.astype(_FLOAT32), axis, keepdims)
            return _round_into(result, x.dtype, out)
        return super().reduce(fn, x, axis, keepdims, out=out)


def bfloat16_dtype():
    """numpy's bfloat16 dtype (from ml_dtypes), or DTypeError naming the extra to install."""
    standardize("bfloat16")            # raises when ml_dtypes is missing
    return numpy.dtype(ml_dtypes.bfloat16)
