"""The GPU backend: CuPy arrays, cuBLAS GEMMs and a few CUDA kernels of our own.

Every kernel of :class:`~lamina.backend.base.Backend` is written against ``self.xp`` and
runs on cupy unchanged; this class overrides only the hot spots:

- convolution as im2col (one CUDA thread per column element, zero padding, strides and
  dilation folded into the index arithmetic) and one cuBLAS GEMM per group; a 1x1 stride-1
  convolution is a plain GEMM. The filter gradient is ``colsᵀ @ dY``; the input gradient is
  ``dY @ Wᵀ`` followed by col2im written as a *gather* (one thread per input element
  summing its taps), so no atomics are needed and results are reproducible bit for bit;
- pooling as one thread per output element, and its gradients as one thread per input
  element (max pooling recomputes which windows have their first maximum there);
- sigmoid as one fused kernel, erf from ``cupyx.scipy.special``;
- ``elementwise_chain`` (a fused tree of elementwise ops) as one generated
  ElementwiseKernel (``cupy_chain.py``);
- counter-based random numbers: Philox4x64-10 keyed by ``key`` with the counter
  ``(element block, counter)``, so a draw is a pure function of (key, counter, element).

The CUDA kernels serve float32 and float64; other dtypes take the generic code. CuPy is
imported when this backend is created, never when Lamina is imported.
"""
from __future__ import annotations

import math

import numpy

from ..errors import DTypeError
from . import cupy_chain, cupy_kernels
from .base import Backend
from .conv import conv_output_size

_INSTALL_HINT = ('pip install "lamina[gpu]" (CUDA 12; see '
                 'https://docs.cupy.dev/en/stable/install.html)')
_KERNEL_DTYPES = (numpy.dtype("float32"), numpy.dtype("float64"))
# im2col builds its column buffer a few samples at a time, so that a big batch never needs
# more than this many elements (256 MiB of float32) at once.
_COLUMN_ELEMENTS = 1 << 26
# Random bits kept per uniform draw: the significand width, so values are exact and < 1.
_UNIFORM_BITS = {"float16": 11, "float32": 24, "float64": 53}
_WORD = 1 << 64


def _import_cupy():
    """Import cupy and check that it can run a kernel on a GPU, with a clear error if not."""
    try:
        import cupy
    except ImportError as exc:
        message = f"The cupy backend needs CuPy: {_INSTALL_HINT}"
        if not (isinstance(exc, ModuleNotFoundError) and exc.name == "cupy"):
            message += f"\n(importing cupy failed: {exc})"
        raise ImportError(message) from exc
    # CuPy reports a missing driver, a driver too old for the runtime, or a broken NVRTC
    # with errors of several types; each one means "no usable GPU" here.
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        raise RuntimeError(
            f"The cupy backend found no usable GPU: CUDA could not list devices "
            f"({type(exc).__name__}: {exc}). Check the NVIDIA driver; CuPy: "
            f"{_INSTALL_HINT}") from exc
    if count == 0:
        raise RuntimeError("The cupy backend found no usable GPU: CUDA reports 0 devices. "
                           f"CuPy: {_INSTALL_HINT}")
    try:
        cupy.asnumpy(cupy.arange(4, dtype=cupy.float32) + 1)   # allocate, compile, launch
    except Exception as exc:
        raise RuntimeError(
            f"The cupy backend cannot run kernels on the GPU ({type(exc).__name__}: {exc}). "
            f"CuPy: {_INSTALL_HINT}") from exc
    return cupy


def _int64s(*values) -> list:
    return [numpy.int64(v) for v in values]


class _ConvGeometry:
    """Shapes of one convolution (NHWC input, HWIO filter) and its kernels' arguments."""

    def __init__(self, input_shape, filter_shape, strides, pads, dilation, groups):
        self.input_shape = tuple(int(d) for d in input_shape)
        self.filter_shape = tuple(int(d) for d in filter_shape)
        self.batch, self.height, self.width, self.channels = self.input_shape
        self.k_h, self.k_w, self.group_channels, self.cout = self.filter_shape
        self.strides, self.dilation = tuple(strides), tuple(dilation)
        self.pads = tuple(tuple(p) for p in pads)
        self.groups = int(groups)
        self.og = self.cout // self.groups
        self.kdim = self.k_h * self.k_w * self.group_channels
        self.out_h = conv_output_size(self.height, self.k_h, self.strides[0], self.pads[0],
                                      self.dilation[0])
        self.out_w = conv_output_size(self.width, self.k_w, self.strides[1], self.pads[1],
                                      self.dilation[1])
        self.output_shape = (self.batch, self.out_h, self.out_w, self.cout)
        self.pointwise = (self.groups == 1 and (self.k_h, self.k_w) == (1, 1)
                          and self.strides == (1, 1) and self.pads == ((0, 0), (0, 0)))

    def sample_chunks(self) -> list:
        """(first, stop) sample ranges whose column buffers fit in _COLUMN_ELEMENTS."""
        per_sample = max(self.out_h * self.out_w * self.kdim * self.groups, 1)
        step = max(1, _COLUMN_ELEMENTS // per_sample)
        return [(n0, min(n0 + step, self.batch)) for n0 in range(0, self.batch, step)]

    def kernel_args(self, rows: int) -> list:
        """The geometry arguments of the im2col/col2im kernels, in their order."""
        (top, _), (left, _) = self.pads
        return _int64s(self.height, self.width, self.channels, self.out_h, self.out_w,
                       self.k_h, self.k_w, self.group_channels, self.strides[0],
                       self.strides[1], self.dilation[0], self.dilation[1], top, left, rows)


def _finish(result, out):
    """``result``, copied into ``out`` when a caller's ``out`` could not be written directly."""
    if out is None or result is out:
        return result
    out[...] = result
    return out


def _pool_output_shape(input_shape, pool_size, strides, pads) -> tuple:
    n, height, width, channels = input_shape
    return (n, conv_output_size(height, pool_size[0], strides[0], pads[0], 1),
            conv_output_size(width, pool_size[1], strides[1], pads[1], 1), channels)


def _pool_args(input_shape, output_shape, pool_size, strides, pads) -> list:
    """The geometry arguments of the pooling kernels, in their order."""
    _, height, width, channels = input_shape
    _, out_h, out_w, _ = output_shape
    (top, _), (left, _) = pads
    return _int64s(height, width, channels, out_h, out_w, pool_size[0], pool_size[1],
                   strides[0], strides[1], top, left)


def _philox_words(op_name: str, key, counter) -> list:
    """(key0, key1, counter_lo, counter_hi) as the uint64 scalars the kernels take."""
    key0, key1 = (int(k) for k in key)
    counter = int(counter)
    if not (0 <= key0 < _WORD and 0 <= key1 < _WORD):
        raise ValueError(f"{op_name}: expected 'key' to be two integers in [0, 2**64); "
                         f"received {tuple(key)}")
    if not 0 <= counter < _WORD * _WORD:
        raise ValueError(f"{op_name}: expected 'counter' in [0, 2**128); received {counter}")
    return [numpy.uint64(key0), numpy.uint64(key1), numpy.uint64(counter % _WORD),
            numpy.uint64(counter // _WORD)]


class CupyBackend(Backend):
    """Kernels on an NVIDIA GPU through CuPy (CUDA 12)."""

    name = "cupy"
    STABLE_SORT: dict = {}          # cupy's argsort is stable and takes no `kind`
    host_arrays = False             # device memory: to_host is a device-to-host copy
    fuses_elementwise = True        # elementwise_chain compiles one CUDA kernel
    sums_by_matmul = False          # cupy's own reductions beat a cuBLAS detour
    atomic_scatter_add = True       # add.at is an atomic kernel on the GPU
    device_counters = True          # random kernels read a SeedGenerator's state on the GPU

    def __init__(self) -> None:
        cupy = _import_cupy()
        import cupyx.scipy.special
        self.xp = cupy
        self.device = f"cuda:{cupy.cuda.runtime.getDevice()}"
        self._erf = cupyx.scipy.special.erf

    # ----------------------------------------------------------------- memory
    def asarray(self, data, dtype: str | None = None):
        """Host data -> a device array: an explicit host-to-device copy."""
        return self.xp.asarray(data, dtype=dtype)

    def to_host(self, a):
        """A device array -> a host numpy array (a device-to-host copy)."""
        return self.xp.asnumpy(a)

    def free_memory_pool(self) -> None:
        """Return the memory pools' unused blocks to the GPU (``clear_session``)."""
        self.xp.get_default_memory_pool().free_all_blocks()
        self.xp.get_default_pinned_memory_pool().free_all_blocks()

    def synchronize(self) -> None:
        """Wait for the work queued on the current CUDA stream."""
        self.xp.cuda.get_current_stream().synchronize()

    def _cuda_buffer(self, out, shape, dtype):
        """``out`` when a kernel can write straight into it, else a new device array."""
        if (out is not None and out.flags.c_contiguous and out.dtype == dtype
                and out.shape == tuple(shape)):
            return out
        return self.xp.empty(tuple(shape), dtype=dtype)

    # ----------------------------------------------------------------- elementwise
    def unary(self, fn: str, x, out=None):
        if (fn == "sigmoid" and x.dtype in _KERNEL_DTYPES
                and (out is None or out.dtype == x.dtype)):
            kernel = cupy_kernels.get("sigmoid")
            return kernel(x) if out is None else kernel(x, out)
        return super().unary(fn, x, out)

    def erf(self, x, out=None):
        return self._erf(x, out=out)

    def elementwise_chain(self, program, inputs, out=None):
        """The whole program as one generated kernel (float32/float64 inputs of one dtype;
        others run it step by step)."""
        dtype = inputs[0].dtype
        if (dtype not in _KERNEL_DTYPES or any(a.dtype != dtype for a in inputs)
                or (out is not None and out.dtype != dtype)):
            return super().elementwise_chain(program, inputs, out)
        kernel = cupy_chain.kernel(program, tuple(a.dtype.name for a in inputs))
        return kernel(*inputs) if out is None else kernel(*inputs, out)

    # ----------------------------------------------------------------- convolution
    @staticmethod
    def _cuda_dtype(*arrays):
        """The common float32/float64 dtype the CUDA kernels serve, or None."""
        dtype = numpy.result_type(*(a.dtype for a in arrays))
        return dtype if dtype in _KERNEL_DTYPES else None

    def _cuda_columns(self, x, geometry: _ConvGeometry):
        """Columns ``(groups, rows, kh*kw*cg)`` of a C-contiguous chunk of samples."""
        rows = x.shape[0] * geometry.out_h * geometry.out_w
        cols = self.xp.empty((geometry.groups, rows, geometry.kdim), dtype=x.dtype)
        cupy_kernels.get("im2col")(x, *geometry.kernel_args(rows), cols)
        return cols

    def conv2d(self, x, w, strides, pads, dilation, groups, out=None):
        """``y[n, p, q, o] = sum_{i,j,c} xpad[n, p*s + i*d, q*s + j*d, c] * w[i, j, c, o]``."""
        dtype = self._cuda_dtype(x, w)
        if dtype is None:
            return super().conv2d(x, w, strides, pads, dilation, groups, out=out)
        xp = self.xp
        geo = _ConvGeometry(x.shape, w.shape, strides, pads, dilation, groups)
        x = xp.ascontiguousarray(x, dtype=dtype)
        w = xp.ascontiguousarray(w, dtype=dtype)
        y = self._cuda_buffer(out, geo.output_shape, dtype)
        if y.size == 0:
            return _finish(y, out)
        if geo.pointwise:
            xp.matmul(x.reshape(-1, geo.channels), w.reshape(geo.channels, geo.cout),
                      out=y.reshape(-1, geo.cout))
            return _finish(y, out)
        w_groups = w.reshape(geo.kdim, geo.groups, geo.og).transpose(1, 0, 2)
        for n0, n1 in geo.sample_chunks():
            cols = self._cuda_columns(x[n0:n1], geo)
            rows = cols.shape[1]
            target = y[n0:n1].reshape(rows, geo.cout)
            if geo.groups == 1:
                xp.matmul(cols[0], w_groups[0], out=target)
            else:
                products = xp.matmul(cols, w_groups)                  # (groups, rows, og)
                target.reshape(rows, geo.groups, geo.og)[...] = products.transpose(1, 0, 2)
        return _finish(y, out)

    def conv2d_backprop_input(self, dy, w, input_shape, strides, pads, dilation, groups,
                              out=None):
        """The gradient of ``conv2d`` with respect to ``x``, shaped ``input_shape``."""
        dtype = self._cuda_dtype(dy, w)
        if dtype is None:
            return super().conv2d_backprop_input(dy, w, input_shape, strides, pads, dilation,
                                                 groups, out=out)
        xp = self.xp
        geo = _ConvGeometry(input_shape, w.shape, strides, pads, dilation, groups)
        dy = xp.ascontiguousarray(dy, dtype=dtype)
        w = xp.ascontiguousarray(w, dtype=dtype)
        dx = self._cuda_buffer(out, geo.input_shape, dtype)
        if dx.size == 0:
            return _finish(dx, out)
        if geo.pointwise:
            xp.matmul(dy.reshape(-1, geo.cout), w.reshape(geo.channels, geo.cout).T,
                      out=dx.reshape(-1, geo.channels))
            return _finish(dx, out)
        w_t = w.reshape(geo.kdim, geo.groups, geo.og).transpose(1, 2, 0)   # (groups, og, kdim)
        col2im = cupy_kernels.get("col2im")
        for n0, n1 in geo.sample_chunks():
            rows = (n1 - n0) * geo.out_h * geo.out_w
            dy_groups = dy[n0:n1].reshape(rows, geo.groups, geo.og).transpose(1, 0, 2)
            dcols = xp.ascontiguousarray(xp.matmul(dy_groups, w_t))   # (groups, rows, kdim)
            col2im(dcols, *geo.kernel_args(rows), dx[n0:n1])
        return _finish(dx, out)

    def conv2d_backprop_filter(self, x, dy, filter_shape, strides, pads, dilation, groups,
                               out=None):
        """The gradient of ``conv2d`` with respect to ``w``, shaped ``filter_shape``."""
        dtype = self._cuda_dtype(x, dy)
        if dtype is None:
            return super().conv2d_backprop_filter(x, dy, filter_shape, strides, pads,
                                                  dilation, groups, out=out)
        xp = self.xp
        geo = _ConvGeometry(x.shape, filter_shape, strides, pads, dilation, groups)
        x = xp.ascontiguousarray(x, dtype=dtype)
        dy = xp.ascontiguousarray(dy, dtype=dtype)
        dw = self._cuda_buffer(out, geo.filter_shape, dtype)
        if dw.size == 0:
            return _finish(dw, out)
        if dy.size == 0:
            dw[...] = 0
            return _finish(dw, out)
        if geo.pointwise:
            xp.matmul(x.reshape(-1, geo.channels).T, dy.reshape(-1, geo.cout),
                      out=dw.reshape(geo.channels, geo.cout))
            return _finish(dw, out)
        total = None
        for n0, n1 in geo.sample_chunks():          # summed in a fixed order: reproducible
            cols = self._cuda_columns(x[n0:n1], geo)
            rows = cols.shape[1]
            dy_groups = dy[n0:n1].reshape(rows, geo.groups, geo.og).transpose(1, 0, 2)
            part = xp.matmul(cols.transpose(0, 2, 1), dy_groups)     # (groups, kdim, og)
            if total is None:
                total = part
            else:
                total += part
        dw.reshape(geo.k_h, geo.k_w, geo.group_channels, geo.groups, geo.og)[...] = \
            total.reshape(geo.groups, geo.k_h, geo.k_w, geo.group_channels,
                          geo.og).transpose(1, 2, 3, 0, 4)
        return _finish(dw, out)

    # ----------------------------------------------------------------- pooling
    def pool2d(self, x, fn, pool_size, strides, pads, out=None):
        """Max or average pooling; the average counts only real (unpadded) elements."""
        if fn not in ("max", "avg"):
            raise ValueError(f"pool2d: expected fn 'max' or 'avg'; received {fn!r}")
        if x.dtype not in _KERNEL_DTYPES:
            return super().pool2d(x, fn, pool_size, strides, pads, out=out)
        x = self.xp.ascontiguousarray(x)
        shape = _pool_output_shape(x.shape, pool_size, strides, pads)
        y = self._cuda_buffer(out, shape, x.dtype)
        if y.size:
            args = _pool_args(x.shape, shape, pool_size, strides, pads)
            if fn == "max":
                cupy_kernels.get("max_pool")(x, *args, x.dtype.type(-numpy.inf), y)
            else:
                cupy_kernels.get("avg_pool")(x, *args, y)
        return _finish(y, out)

    def max_pool2d_backprop(self, x, y, dy, pool_size, strides, pads, out=None):
        """Route each ``dy`` to the first maximum of its window."""
        if x.dtype not in _KERNEL_DTYPES or not x.dtype == y.dtype == dy.dtype:
            return super().max_pool2d_backprop(x, y, dy, pool_size, strides, pads, out)
        xp = self.xp
        x, y, dy = (xp.ascontiguousarray(a) for a in (x, y, dy))
        dx = out if out is not None else xp.empty(x.shape, dtype=dy.dtype)
        if dx.size:
            args = _pool_args(x.shape, y.shape, pool_size, strides, pads)
            cupy_kernels.get("max_pool_backprop")(x, y, dy, *args, x.dtype.type(-numpy.inf),
                                                  dx)
        return dx

    def avg_pool2d_backprop(self, dy, input_shape, pool_size, strides, pads):
        """Spread each ``dy`` evenly over the real elements of its window."""
        if dy.dtype not in _KERNEL_DTYPES:
            return super().avg_pool2d_backprop(dy, input_shape, pool_size, strides, pads)
        xp = self.xp
        dy = xp.ascontiguousarray(dy)
        dx = xp.empty(tuple(input_shape), dtype=dy.dtype)
        if dx.size:
            args = _pool_args(tuple(input_shape), dy.shape, pool_size, strides, pads)
            cupy_kernels.get("avg_pool_backprop")(dy, *args, dx)
        return dx

    # ----------------------------------------------------------------- linalg
    def eig(self, x):
        """CuPy has no general (non-symmetric) eigensolver: LAPACK's on the host, and back."""
        host = numpy.linalg.eig(self.xp.asnumpy(x))
        return tuple(self.xp.asarray(numpy.ascontiguousarray(part).astype(x.dtype))
                     for z in host for part in (z.real, z.imag))

    # ----------------------------------------------------------------- random
    def random_uniform(self, shape, dtype, key, counter):
        """Uniform [0, 1) draws: a pure function of (key, counter, element index)."""
        return self._cuda_random("random_uniform", "uniform", shape, dtype, key, counter)

    def random_normal(self, shape, dtype, key, counter):
        """Standard normal draws: a pure function of (key, counter, element index)."""
        return self._cuda_random("random_normal", "normal", shape, dtype, key, counter)

    def _cuda_random(self, op_name, kernel_name, shape, dtype, key, counter):
        name = numpy.dtype(dtype).name
        if name not in _UNIFORM_BITS:
            raise DTypeError(f"{op_name}: expected a float dtype (float16, float32, "
                             f"float64); received {name}")
        if isinstance(counter, int):
            words = _philox_words(op_name, key, counter)
        else:               # the counter's array on the device (Backend.device_counters)
            words = _philox_words(op_name, key, 0)[:2] + [counter]
            kernel_name += "_device_counter"
        shape = tuple(int(d) for d in shape)
        size = math.prod(shape)
        compute = "float64" if name == "float64" else "float32"
        blocks = -(-size // 4)                     # each Philox call yields four values
        buffer = self.xp.empty(4 * blocks, dtype=compute)
        if blocks:
            kernel = cupy_kernels.get(kernel_name)
            if kernel_name.startswith("uniform"):
                bits = _UNIFORM_BITS[name]
                kernel(*words, numpy.int32(64 - bits), numpy.float64(2.0 ** -bits), buffer,
                       size=blocks)
            else:
                kernel(*words, buffer, size=blocks)
        values = buffer[:size].reshape(shape)
        return values if name == compute else values.astype(name)

    def _cuda_philox_bits(self, blocks: int, key, counter):
        """The raw generator: ``(blocks, 4)`` uint64 words, block b at counter (b, counter).

        Exposed for the tests, which compare it with ``numpy.random.Philox``.
        """
        words = _philox_words("philox", key, counter)
        out = self.xp.empty(4 * blocks, dtype="uint64")
        if blocks:
            cupy_kernels.get("philox_raw")(*words, out, size=blocks)
        return out.reshape(blocks, 4)
