"""CUDA sources of the cupy backend's own kernels, compiled on first use and cached.

Each kernel is a ``cupy.ElementwiseKernel``: one thread per *output* element, which reads
what it needs through ``raw`` (manually indexed, C-order) arguments. Writing every output
from exactly one thread needs no atomics, so every kernel here is deterministic. The loop
index ``i``, ``n`` and names starting with ``_`` are CuPy's; the bodies avoid them.

Geometry (NHWC images, HWIO filters) arrives as int64 scalars; the index arithmetic is in
``ptrdiff_t`` so that no product overflows. The image kernels are instantiated only for
float32 and float64 (the backend falls back to the generic code for other dtypes).

Nothing here imports cupy until a kernel is first asked for.
"""
from __future__ import annotations

_GEOMETRY = ("int64 height, int64 width, int64 channels, int64 out_h, int64 out_w, "
             "int64 k_h, int64 k_w")
_CONV_PARAMS = (_GEOMETRY + ", int64 group_channels, int64 stride_h, int64 stride_w, "
                "int64 dil_h, int64 dil_w, int64 pad_top, int64 pad_left, int64 rows")
_POOL_PARAMS = _GEOMETRY + ", int64 stride_h, int64 stride_w, int64 pad_top, int64 pad_left"

# cols[group, row, (ki * k_w + kj) * group_channels + c] for row = (sample, p, q):
# the input pixel under kernel tap (ki, kj) of output pixel (p, q), or 0 in the padding.
_IM2COL = """
ptrdiff_t rest = i;
const ptrdiff_t c = rest % group_channels; rest /= group_channels;
const ptrdiff_t kj = rest % k_w; rest /= k_w;
const ptrdiff_t ki = rest % k_h; rest /= k_h;
const ptrdiff_t row = rest % rows;
const ptrdiff_t group = rest / rows;
const ptrdiff_t q = row % out_w;
const ptrdiff_t p = (row / out_w) % out_h;
const ptrdiff_t sample = row / (out_w * out_h);
const ptrdiff_t h = p * stride_h + ki * dil_h - pad_top;
const ptrdiff_t w = q * stride_w + kj * dil_w - pad_left;
if (h >= 0 && h < height && w >= 0 && w < width) {
    col = x[((sample * height + h) * width + w) * channels + group * group_channels + c];
} else {
    col = (T)0;
}
"""

# The adjoint of _IM2COL as a gather: each input element sums the column entries that
# were copied from it, i.e. the taps (ki, kj) whose output pixel (p, q) lands on the
# stride grid inside the output.
_COL2IM = """
ptrdiff_t rest = i;
const ptrdiff_t ch = rest % channels; rest /= channels;
const ptrdiff_t w = rest % width; rest /= width;
const ptrdiff_t h = rest % height;
const ptrdiff_t sample = rest / height;
const ptrdiff_t group = ch / group_channels;
const ptrdiff_t c = ch % group_channels;
const ptrdiff_t kdim = k_h * k_w * group_channels;
T total = 0;
for (ptrdiff_t ki = 0; ki < k_h; ++ki) {
    const ptrdiff_t ph = h + pad_top - ki * dil_h;
    if (ph < 0 || ph % stride_h != 0 || ph / stride_h >= out_h) continue;
    const ptrdiff_t p = ph / stride_h;
    for (ptrdiff_t kj = 0; kj < k_w; ++kj) {
        const ptrdiff_t pw = w + pad_left - kj * dil_w;
        if (pw < 0 || pw % stride_w != 0 || pw / stride_w >= out_w) continue;
        const ptrdiff_t q = pw / stride_w;
        const ptrdiff_t row = (sample * out_h + p) * out_w + q;
        total += cols[(group * rows + row) * kdim + (ki * k_w + kj) * group_channels + c];
    }
}
dx = total;
"""

# Decode an output element (sample, p, q, c) of a pooling and its window's top-left corner
# (h0, w0) in unpadded coordinates.
_POOL_OUTPUT_INDEX = """
ptrdiff_t rest = i;
const ptrdiff_t c = rest % channels; rest /= channels;
const ptrdiff_t q = rest % out_w; rest /= out_w;
const ptrdiff_t p = rest % out_h;
const ptrdiff_t sample = rest / out_h;
const ptrdiff_t h0 = p * stride_h - pad_top;
const ptrdiff_t w0 = q * stride_w - pad_left;
"""

# Padding reads as ``fill`` (-inf), as in the numpy kernel; a NaN in the window wins.
_MAX_POOL = _POOL_OUTPUT_INDEX + """
T best = fill;
for (ptrdiff_t a = 0; a < k_h; ++a) {
    const ptrdiff_t h = h0 + a;
    if (h < 0 || h >= height) continue;
    for (ptrdiff_t b = 0; b < k_w; ++b) {
        const ptrdiff_t w = w0 + b;
        if (w < 0 || w >= width) continue;
        const T v = x[((sample * height + h) * width + w) * channels + c];
        if (v > best || v != v) best = v;
    }
}
y = best;
"""

# The average over the window's real (unpadded) elements. Counts reach T through double:
# CuPy's float16 has no unambiguous conversion from an integer.
_AVG_POOL = _POOL_OUTPUT_INDEX + """
const ptrdiff_t h_lo = h0 > 0 ? h0 : 0;
const ptrdiff_t h_hi = h0 + k_h < height ? h0 + k_h : height;
const ptrdiff_t w_lo = w0 > 0 ? w0 : 0;
const ptrdiff_t w_hi = w0 + k_w < width ? w0 + k_w : width;
T total = 0;
for (ptrdiff_t h = h_lo; h < h_hi; ++h) {
    for (ptrdiff_t w = w_lo; w < w_hi; ++w) {
        total += x[((sample * height + h) * width + w) * channels + c];
    }
}
y = total / (T)(double)((h_hi - h_lo) * (w_hi - w_lo));
"""

# Decode an input element (sample, h, w, c) and the range of output pixels [p_lo, p_hi] x
# [q_lo, q_hi] whose windows cover it: p * stride_h <= h + pad_top <= p * stride_h + k_h - 1.
_POOL_INPUT_WINDOWS = """
ptrdiff_t rest = i;
const ptrdiff_t c = rest % channels; rest /= channels;
const ptrdiff_t w = rest % width; rest /= width;
const ptrdiff_t h = rest % height;
const ptrdiff_t sample = rest / height;
const ptrdiff_t hp = h + pad_top;
const ptrdiff_t wp = w + pad_left;
const ptrdiff_t p_lo = hp >= k_h ? (hp - k_h) / stride_h + 1 : 0;
const ptrdiff_t q_lo = wp >= k_w ? (wp - k_w) / stride_w + 1 : 0;
const ptrdiff_t p_hi = hp < 0 ? -1 : (hp / stride_h < out_h ? hp / stride_h : out_h - 1);
const ptrdiff_t q_hi = wp < 0 ? -1 : (wp / stride_w < out_w ? wp / stride_w : out_w - 1);
T total = 0;
"""

# Each covering window sends its gradient here only if this element is the window's
# *first* maximum in row-major order (padding reads as ``fill``), as the numpy kernel does.
_MAX_POOL_BACKPROP = _POOL_INPUT_WINDOWS + """
for (ptrdiff_t p = p_lo; p <= p_hi; ++p) {
    for (ptrdiff_t q = q_lo; q <= q_hi; ++q) {
        const ptrdiff_t out_index = ((sample * out_h + p) * out_w + q) * channels + c;
        const T target = y[out_index];
        const ptrdiff_t h0 = p * stride_h - pad_top;
        const ptrdiff_t w0 = q * stride_w - pad_left;
        bool found = false;
        ptrdiff_t first_h = 0, first_w = 0;
        for (ptrdiff_t a = 0; a < k_h && !found; ++a) {
            for (ptrdiff_t b = 0; b < k_w && !found; ++b) {
                const ptrdiff_t hh = h0 + a;
                const ptrdiff_t ww = w0 + b;
                const bool inside = hh >= 0 && hh < height && ww >= 0 && ww < width;
                const T v = inside ? x[((sample * height + hh) * width + ww) * channels + c]
                                   : fill;
                if (v == target) {
                    found = true;
                    first_h = hh;
                    first_w = ww;
                }
            }
        }
        if (found && first_h == h && first_w == w) total += dy[out_index];
    }
}
dx = total;
"""

# Each covering window sends dy / (its number of real elements).
_AVG_POOL_BACKPROP = _POOL_INPUT_WINDOWS + """
for (ptrdiff_t p = p_lo; p <= p_hi; ++p) {
    const ptrdiff_t h0 = p * stride_h - pad_top;
    const ptrdiff_t rows_in = (h0 + k_h < height ? h0 + k_h : height) - (h0 > 0 ? h0 : 0);
    for (ptrdiff_t q = q_lo; q <= q_hi; ++q) {
        const ptrdiff_t w0 = q * stride_w - pad_left;
        const ptrdiff_t cols_in = (w0 + k_w < width ? w0 + k_w : width) - (w0 > 0 ? w0 : 0);
        total += dy[((sample * out_h + p) * out_w + q) * channels + c]
                 / (T)(double)(rows_in * cols_in);
    }
}
dx = total;
"""

_SIGMOID_PREAMBLE = """
__device__ float lamina_sigmoid(float v) { return 1.0f / (1.0f + expf(-v)); }
__device__ double lamina_sigmoid(double v) { return 1.0 / (1.0 + exp(-v)); }
"""

# Philox4x64-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC11), the
# generator behind numpy.random.Philox: 10 rounds of two 64x64->128-bit multiplies on a
# 256-bit counter under a 128-bit key. Counter = (block, counter_lo, counter_hi, 0).
_PHILOX_PREAMBLE = """
__device__ void lamina_philox4x64(unsigned long long block, unsigned long long ctr_lo,
                                  unsigned long long ctr_hi, unsigned long long key0,
                                  unsigned long long key1, unsigned long long* out) {
    unsigned long long c0 = block, c1 = ctr_lo, c2 = ctr_hi, c3 = 0;
    unsigned long long k0 = key0, k1 = key1;
    for (int step = 0; step < 10; ++step) {
        const unsigned long long hi0 = __umul64hi(0xD2E7470EE14C6C93ULL, c0);
        const unsigned long long lo0 = 0xD2E7470EE14C6C93ULL * c0;
        const unsigned long long hi1 = __umul64hi(0xCA5A826395121157ULL, c2);
        const unsigned long long lo1 = 0xCA5A826395121157ULL * c2;
        c0 = hi1 ^ c1 ^ k0;
        c1 = lo1;
        c2 = hi0 ^ c3 ^ k1;
        c3 = lo0;
        k0 += 0x9E3779B97F4A7C15ULL;
        k1 += 0xBB67AE8584CAA73BULL;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}
"""

_PHILOX_PARAMS = "uint64 key0, uint64 key1, uint64 ctr_lo, uint64 ctr_hi"

# One thread per block of four outputs. ``shift``/``scale`` keep exactly as many random
# bits as the dtype's significand holds, so the value is exact and never rounds up to 1.
_UNIFORM = """
unsigned long long bits[4];
lamina_philox4x64((unsigned long long)i, ctr_lo, ctr_hi, key0, key1, bits);
for (int lane = 0; lane < 4; ++lane) {
    y[4 * i + lane] = (T)((double)(bits[lane] >> shift) * scale);
}
"""

# Box-Muller on 53-bit uniforms: u1 in (0, 1] keeps the log finite, u2 in [0, 1).
_NORMAL = """
unsigned long long bits[4];
lamina_philox4x64((unsigned long long)i, ctr_lo, ctr_hi, key0, key1, bits);
for (int pair = 0; pair < 2; ++pair) {
    const double u1 = ((double)(bits[2 * pair] >> 11) + 1.0) * 1.1102230246251565e-16;
    const double u2 = (double)(bits[2 * pair + 1] >> 11) * 1.1102230246251565e-16;
    const double radius = sqrt(-2.0 * log(u1));
    const double angle = 6.283185307179586 * u2;
    y[4 * i + 2 * pair] = (T)(radius * cos(angle));
    y[4 * i + 2 * pair + 1] = (T)(radius * sin(angle));
}
"""

_PHILOX_RAW = """
unsigned long long bits[4];
lamina_philox4x64((unsigned long long)i, ctr_lo, ctr_hi, key0, key1, bits);
for (int lane = 0; lane < 4; ++lane) {
    y[4 * i + lane] = bits[lane];
}
"""

# A counter that lives on the device: a 0-d int64 array (a SeedGenerator's state, never
# negative), its value the low counter word.
_PHILOX_DEVICE_PARAMS = "uint64 key0, uint64 key1, raw int64 counter"


def _device_counter(body: str) -> str:
    """``body`` reading its Philox counter from the ``counter`` array."""
    return ("const unsigned long long ctr_lo = (unsigned long long)counter[0];\n"
            "const unsigned long long ctr_hi = 0;\n" + body)


# name -> (in_params, out_params, operation, preamble)
SOURCES = {
    "im2col": ("raw T x, " + _CONV_PARAMS, "T col", _IM2COL, ""),
    "col2im": ("raw T cols, " + _CONV_PARAMS, "T dx", _COL2IM, ""),
    "max_pool": ("raw T x, " + _POOL_PARAMS + ", T fill", "T y", _MAX_POOL, ""),
    "avg_pool": ("raw T x, " + _POOL_PARAMS, "T y", _AVG_POOL, ""),
    "max_pool_backprop": ("raw T x, raw T y, raw T dy, " + _POOL_PARAMS + ", T fill", "T dx",
                          _MAX_POOL_BACKPROP, ""),
    "avg_pool_backprop": ("raw T dy, " + _POOL_PARAMS, "T dx", _AVG_POOL_BACKPROP, ""),
    "sigmoid": ("T x", "T y", "y = lamina_sigmoid(x);", _SIGMOID_PREAMBLE),
    "uniform": (_PHILOX_PARAMS + ", int32 shift, float64 scale", "raw T y", _UNIFORM,
                _PHILOX_PREAMBLE),
    "normal": (_PHILOX_PARAMS, "raw T y", _NORMAL, _PHILOX_PREAMBLE),
    "philox_raw": (_PHILOX_PARAMS, "raw uint64 y", _PHILOX_RAW, _PHILOX_PREAMBLE),
    # the same draws with the counter read on the device from a SeedGenerator's state
    "uniform_device_counter": (_PHILOX_DEVICE_PARAMS + ", int32 shift, float64 scale",
                               "raw T y", _device_counter(_UNIFORM), _PHILOX_PREAMBLE),
    "normal_device_counter": (_PHILOX_DEVICE_PARAMS, "raw T y", _device_counter(_NORMAL),
                              _PHILOX_PREAMBLE),
}

_compiled: dict = {}


def get(name: str):
    """The ``cupy.ElementwiseKernel`` called ``name`` (CuPy compiles it per dtype on use)."""
    kernel = _compiled.get(name)
    if kernel is None:
        import cupy
        in_params, out_params, operation, preamble = SOURCES[name]
        kernel = _compiled[name] = cupy.ElementwiseKernel(
            in_params, out_params, operation, f"lamina_{name}", preamble=preamble)
    return kernel
