"""oneDNN's C API through ctypes: the library, one CPU engine and stream, memory descriptors of
numpy arrays, and primitives created once and run on many buffers.

The library is the ``libdnnl.so.3`` of the ``onednn-cpu-gomp`` wheel (oneDNN 3.2, GNU OpenMP
threads; a default dependency on Linux x86-64, see setup.cfg), found under ``sys.prefix/lib``
or by the loader. Nothing is compiled at install time. ``LAMINA_ONEDNN=0`` turns it off, and
everything then runs on the numpy kernels, as it does wherever the library is absent.

A :class:`Primitive` owns its primitive, one memory object per argument (created without a
buffer: a call binds the caller's arrays with ``dnnl_memory_set_data_handle``) and its own
scratchpad, so a call costs a few ctypes calls (about 20 µs) and allocates nothing. Arrays
are described by their strides as they are (NHWC activations, Keras's HWIO filters), so no
reorder runs: measured on the VGG convolutions, oneDNN's blocked layouts win 4% over NHWC,
less than the reorders at a plan's boundaries would cost. Primitives whose implementation is
oneDNN's reference C code (``ref:``) are refused: the numpy kernels are faster than those.
"""
from __future__ import annotations

import ctypes
import os
import sys
import threading

import numpy

from .thread_policy import apply_before_openmp, own_cores

# --------------------------------------------------------------------------- constants
# Values of oneDNN 3.2's enums (dnnl_types.h, dnnl_common_types.h).
SUCCESS = 0
DATA_TYPES = {"float16": 1, "bfloat16": 2, "float32": 3, "int32": 4, "int8": 5, "uint8": 6}
FORWARD_TRAINING, FORWARD_INFERENCE = 64, 96
BACKWARD, BACKWARD_DATA, BACKWARD_WEIGHTS = 128, 160, 192
CONVOLUTION_DIRECT = 0x1
DECONVOLUTION_DIRECT = 0xa
POOLING_MAX, POOLING_AVG_INCLUDE, POOLING_AVG_EXCLUDE = 0x1ff, 0x2ff, 0x3ff
ELTWISE = {"relu": 0x20, "tanh": 0x21, "sigmoid": 0x29, "linear": 0x26}
# RNN cells (dnnl_alg_kind_t) and directions (dnnl_rnn_direction_t), for dnnl_rnn.py.
VANILLA_LSTM, VANILLA_GRU, LBR_GRU = 0x2fff, 0x3fff, 0x4fff
RNN_LEFT2RIGHT, RNN_RIGHT2LEFT = 1, 2
RNN_DIFF_WEIGHTS_OVERWRITE = 0x1            # dnnl_rnn_flags_t: no accumulation
NORM_USE_SCALE, NORM_USE_SHIFT = 0x2, 0x4   # dnnl_normalization_flags_t
QUERY_IMPL_INFO_STR, QUERY_EXEC_ARG_MD, QUERY_SCRATCHPAD_MD, QUERY_WORKSPACE_MD = 8, 255, 136, 135
SCRATCHPAD_MODE_USER = 1
ENGINE_CPU = 1
STREAM_IN_ORDER = 0x1
FORMAT_ANY = 1
# Execute arguments (DNNL_ARG_*).
ARGS = {"src": 1, "src_1": 2, "src_iter": 2, "src_iter_c": 3, "dst": 17, "dst_iter": 18, "dst_iter_c": 19,
        "weights": 33, "weights_iter": 34, "bias": 41, "mean": 49, "variance": 50,
        "scale": 51, "shift": 52, "workspace": 64, "scratchpad": 80,
        "diff_src": 129, "diff_src_iter": 130, "diff_src_iter_c": 131,
        "diff_dst": 145, "diff_dst_iter": 146, "diff_dst_iter_c": 147,
        "diff_weights": 161, "diff_weights_iter": 162, "diff_bias": 169,
        "diff_scale": 255, "diff_shift": 256}
MAX_NDIMS = 12

Dims = ctypes.c_int64 * MAX_NDIMS
_p = ctypes.c_void_p


class _ExecArg(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_int), ("memory", _p)]


class DnnlError(RuntimeError):
    """A oneDNN call that failed (the caller falls back to the numpy kernels)."""


# --------------------------------------------------------------------------- the library
def _library_paths():
    """Where pip puts the wheel's library (its data files go to ``<prefix>/lib``: the
    environment's prefix, or the user base for ``pip install --user``), then the loader's
    own search path."""
    import site
    name = "libdnnl.so.3"
    for prefix in dict.fromkeys((sys.prefix, sys.base_prefix, os.path.dirname(
            os.path.dirname(sys.executable)), site.getuserbase())):
        yield os.path.join(prefix, "lib", name)
    yield name                                  # the loader's own search path


def _load():
    if os.environ.get("LAMINA_ONEDNN", "1").strip().lower() in ("0", "false", "no", "off"):
        return None
    if not sys.platform.startswith("linux"):
        return None
    apply_before_openmp()
    for path in _library_paths():
        if path.startswith("/") and not os.path.exists(path):
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        if not _is_version_3(lib):
            return None
        _declare(lib)
        return lib
    return None


class _Version(ctypes.Structure):
    _fields_ = [("major", ctypes.c_int), ("minor", ctypes.c_int), ("patch", ctypes.c_int),
                ("hash", ctypes.c_char_p), ("cpu_runtime", ctypes.c_uint),
                ("gpu_runtime", ctypes.c_uint)]


def _is_version_3(lib) -> bool:
    """The enum values above are oneDNN 3's (its C API is stable within a major version)."""
    lib.dnnl_version.restype = ctypes.POINTER(_Version)
    version = lib.dnnl_version().contents
    return version.major == 3


def _declare(lib) -> None:
    status = ctypes.c_int
    table = {
        "dnnl_engine_create": [_p, ctypes.c_int, ctypes.c_size_t],
        "dnnl_stream_create": [_p, _p, ctypes.c_uint],
        "dnnl_stream_wait": [_p],
        "dnnl_memory_desc_create_with_strides": [_p, ctypes.c_int, Dims, ctypes.c_int, Dims],
        "dnnl_memory_desc_create_with_tag": [_p, ctypes.c_int, Dims, ctypes.c_int, ctypes.c_int],
        "dnnl_memory_desc_destroy": [_p],
        "dnnl_memory_create": [_p, _p, _p, _p],
        "dnnl_memory_set_data_handle": [_p, _p],
        "dnnl_memory_destroy": [_p],
        "dnnl_primitive_desc_destroy": [_p],
        "dnnl_primitive_create": [_p, _p],
        "dnnl_primitive_execute": [_p, _p, ctypes.c_int, _p],
        "dnnl_primitive_destroy": [_p],
        "dnnl_primitive_desc_query": [_p, ctypes.c_int, ctypes.c_int, _p],
        "dnnl_primitive_attr_create": [_p],
        "dnnl_primitive_attr_destroy": [_p],
        "dnnl_primitive_attr_set_scratchpad_mode": [_p, ctypes.c_int],
        "dnnl_primitive_attr_set_post_ops": [_p, _p],
        "dnnl_post_ops_create": [_p],
        "dnnl_post_ops_destroy": [_p],
        "dnnl_post_ops_append_eltwise": [_p, ctypes.c_int, ctypes.c_float, ctypes.c_float],
        "dnnl_convolution_forward_primitive_desc_create":
            [_p, _p, ctypes.c_int, ctypes.c_int, _p, _p, _p, _p, Dims, Dims, Dims, Dims, _p],
        "dnnl_convolution_backward_data_primitive_desc_create":
            [_p, _p, ctypes.c_int, _p, _p, _p, Dims, Dims, Dims, Dims, _p, _p],
        "dnnl_convolution_backward_weights_primitive_desc_create":
            [_p, _p, ctypes.c_int, _p, _p, _p, _p, Dims, Dims, Dims, Dims, _p, _p],
        "dnnl_pooling_forward_primitive_desc_create":
            [_p, _p, ctypes.c_int, ctypes.c_int, _p, _p, Dims, Dims, Dims, Dims, Dims, _p],
        "dnnl_reorder_primitive_desc_create": [_p, _p, _p, _p, _p, _p],
        "dnnl_binary_primitive_desc_create": [_p, _p, ctypes.c_int, _p, _p, _p, _p],
        "dnnl_matmul_primitive_desc_create": [_p, _p, _p, _p, _p, _p, _p],
        "dnnl_pooling_backward_primitive_desc_create":
            [_p, _p, ctypes.c_int, _p, _p, Dims, Dims, Dims, Dims, Dims, _p, _p],
        "dnnl_batch_normalization_forward_primitive_desc_create":
            [_p, _p, ctypes.c_int, _p, _p, ctypes.c_float, ctypes.c_uint, _p],
        "dnnl_batch_normalization_backward_primitive_desc_create":
            [_p, _p, ctypes.c_int, _p, _p, _p, ctypes.c_float, ctypes.c_uint, _p, _p],
        "dnnl_lstm_forward_primitive_desc_create":
            [_p, _p, ctypes.c_int, ctypes.c_int] + [_p] * 11 + [ctypes.c_uint, _p],
        "dnnl_lstm_backward_primitive_desc_create":
            [_p, _p, ctypes.c_int, ctypes.c_int] + [_p] * 22 + [ctypes.c_uint, _p, _p],
        "dnnl_gru_forward_primitive_desc_create":
            [_p, _p, ctypes.c_int, ctypes.c_int] + [_p] * 7 + [ctypes.c_uint, _p],
        "dnnl_gru_backward_primitive_desc_create":
            [_p, _p, ctypes.c_int, ctypes.c_int] + [_p] * 14 + [ctypes.c_uint, _p, _p],
        "dnnl_lbr_gru_forward_primitive_desc_create":
            [_p, _p, ctypes.c_int, ctypes.c_int] + [_p] * 7 + [ctypes.c_uint, _p],
        "dnnl_lbr_gru_backward_primitive_desc_create":
            [_p, _p, ctypes.c_int, ctypes.c_int] + [_p] * 14 + [ctypes.c_uint, _p, _p],
    }
    for name, argtypes in table.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = argtypes, status
    for name in ("dnnl_primitive_desc_query_md",):
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = [_p, ctypes.c_int, ctypes.c_int], _p
    lib.dnnl_sgemm.argtypes = [ctypes.c_char, ctypes.c_char, ctypes.c_int64, ctypes.c_int64,
                               ctypes.c_int64, ctypes.c_float, _p, ctypes.c_int64, _p,
                               ctypes.c_int64, ctypes.c_float, _p, ctypes.c_int64]
    lib.dnnl_sgemm.restype = status
    lib.dnnl_memory_desc_equal.argtypes = [_p, _p]
    lib.dnnl_memory_desc_equal.restype = ctypes.c_int
    lib.omp_set_num_threads.argtypes = [ctypes.c_int]
    lib.omp_get_max_threads.restype = ctypes.c_int
    lib.dnnl_memory_desc_get_size.argtypes = [_p]
    lib.dnnl_memory_desc_get_size.restype = ctypes.c_size_t


SMALL_WORK = 1 << 25
"""Kernels of fewer multiply-adds (or, for pooling, elements) than this run on one OpenMP
thread: measured on the 2-core build machine, a second thread gains nothing below it (the
digits VGG's convolutions, 0.6-19M multiply-adds: 1.0x) and its wake-up (OpenMP waits
passively) is paid on every call; on a busy machine every call that needs two threads also
waits for the slower one. The count follows from the shapes alone, so eager mode and graph
plans run each kernel with the same threads and get the same bits."""

_threads = threading.local()


def use_threads(rt, work: int) -> None:
    """Set the calling thread's OpenMP thread count for a kernel of ``work``."""
    wanted = 1 if work < SMALL_WORK else rt.cores
    if getattr(_threads, "count", None) != wanted:
        rt.lib.omp_set_num_threads(wanted)
        _threads.count = wanted


class _Runtime:
    """The library, its CPU engine and one in-order stream (created on first use)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._ready = False
        self.lib = self.engine = self.stream = None

    def get(self):
        if not self._ready:
            with self._lock:
                if not self._ready:
                    self._start()
                    self._ready = True
        return self if self.lib is not None else None

    def _start(self):
        lib = _load()
        if lib is None:
            return
        engine, stream = _p(), _p()
        if (lib.dnnl_engine_create(ctypes.byref(engine), ENGINE_CPU, 0) != SUCCESS or
                lib.dnnl_stream_create(ctypes.byref(stream), engine, STREAM_IN_ORDER)
                != SUCCESS):
            return
        self.lib, self.engine, self.stream = lib, engine, stream
        self.cores = max(1, lib.omp_get_max_threads())
        own_cores()

    def check(self, status: int, what: str) -> None:
        if status != SUCCESS:
            raise DnnlError(f"oneDNN: {what} failed with status {status}")


RUNTIME = _Runtime()


def runtime():
    """The oneDNN runtime, or None where the library is absent or turned off."""
    return RUNTIME.get()


# --------------------------------------------------------------------------- descriptors
def data_type(dtype) -> int | None:
    return DATA_TYPES.get(getattr(dtype, "name", str(dtype)))


class MemoryDesc:
    """An owned ``dnnl_memory_desc_t`` of logical ``dims`` laid out with element ``strides``
    (``strides=None``: the format ``any``, for the primitive to choose)."""

    __slots__ = ("handle", "_rt")

    def __init__(self, rt, dims, dtype: int, strides=None):
        self._rt = rt
        self.handle = _p()
        if strides is None:
            status = rt.lib.dnnl_memory_desc_create_with_tag(
                ctypes.byref(self.handle), len(dims), Dims(*dims), dtype, FORMAT_ANY)
        else:
            status = rt.lib.dnnl_memory_desc_create_with_strides(
                ctypes.byref(self.handle), len(dims), Dims(*dims), dtype, Dims(*strides))
        rt.check(status, f"memory descriptor {tuple(dims)}")

    def __del__(self):
        if self.handle and self._rt.lib is not None:
            self._rt.lib.dnnl_memory_desc_destroy(self.handle)


def element_strides(array) -> tuple:
    return tuple(s // array.itemsize for s in array.strides)


def c_strides(shape) -> tuple:
    """The element strides of a C-contiguous array of ``shape`` (length-1 axes included)."""
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(step)
        step *= max(d, 1)
    return tuple(reversed(strides))


def target(out, shape, dtype):
    """``out`` itself where a primitive can write into it (C-contiguous, of ``shape`` and
    ``dtype``), else a fresh C-contiguous numpy array (numpy: oneDNN's CPU engine reads host
    memory)."""
    if (out is not None and out.dtype == dtype and tuple(out.shape) == tuple(shape)
            and out.flags.c_contiguous):
        return out
    return numpy.empty(shape, dtype=dtype)


def finish(y, out):
    """``y``, copied into ``out`` where ``target`` could not use it."""
    if out is None or out is y:
        return y
    out[...] = y
    return out


# --------------------------------------------------------------------------- the cache
MAX_CACHED = 2048
"""Primitives kept (with their scratchpads); beyond that the cache starts over. A primitive
made again computes the same bits: the choice of kernel depends only on the key."""

CACHE: dict = {}
_CACHE_LOCK = threading.Lock()


class Prepared(Exception):
    """Raised by :func:`cached` inside :func:`preparing` once the kernel's primitive exists:
    it ends the kernel call before anything runs."""


class _Preparing(threading.local):
    active = False


_PREPARING = _Preparing()


class preparing:
    """``with preparing(): kernel(...)`` makes (or finds) the kernel's primitive and runs
    nothing: a graph plan creates its steps' primitives when it is built (see
    ``graph/executor.py``), so the first step computes instead of creating them."""

    def __enter__(self):
        _PREPARING.active = True

    def __exit__(self, kind, error, traceback) -> bool:
        _PREPARING.active = False
        return kind is Prepared


def cached(key, make):
    """The primitive (or group of primitives) of ``key``, made once by ``make()``; None where
    oneDNN refused it. One cache for every oneDNN kernel, shared by eager mode and plans."""
    try:
        found = CACHE[key]
    except KeyError:
        with _CACHE_LOCK:
            if key not in CACHE:
                if len(CACHE) >= MAX_CACHED:
                    CACHE.clear()
                try:
                    CACHE[key] = make()
                except DnnlError:
                    CACHE[key] = None
            found = CACHE[key]
    if _PREPARING.active:
        raise Prepared(key)
    return found


def clear_cache() -> None:
    with _CACHE_LOCK:
        CACHE.clear()


def dims_of(values) -> Dims:
    return Dims(*values)


class Attr:
    """A primitive attribute with a user scratchpad and optional eltwise post-ops."""

    def __init__(self, rt, post_ops=()):
        self._rt = rt
        self.handle = _p()
        rt.check(rt.lib.dnnl_primitive_attr_create(ctypes.byref(self.handle)), "attr")
        rt.check(rt.lib.dnnl_primitive_attr_set_scratchpad_mode(self.handle,
                                                                SCRATCHPAD_MODE_USER),
                 "scratchpad mode")
        if post_ops:
            ops = _p()
            rt.check(rt.lib.dnnl_post_ops_create(ctypes.byref(ops)), "post-ops")
            try:
                for alg, alpha, beta in post_ops:
                    rt.check(rt.lib.dnnl_post_ops_append_eltwise(ops, alg, alpha, beta),
                             "eltwise post-op")
                rt.check(rt.lib.dnnl_primitive_attr_set_post_ops(self.handle, ops),
                         "post-ops")
            finally:
                rt.lib.dnnl_post_ops_destroy(ops)

    def __del__(self):
        if self.handle and self._rt.lib is not None:
            self._rt.lib.dnnl_primitive_attr_destroy(self.handle)


class PrimitiveDesc:
    """An owned primitive descriptor (made by ``create(pointer_to_handle)``)."""

    def __init__(self, rt, create, what: str):
        self._rt = rt
        self.handle = _p()
        # oneDNN plans a primitive's work for the thread count in force when it is made:
        # every core, whatever a small kernel before it set (it may then run on fewer)
        use_threads(rt, SMALL_WORK)
        rt.check(create(ctypes.byref(self.handle)), what)

    def implementation(self) -> str:
        name = ctypes.c_char_p()
        self._rt.lib.dnnl_primitive_desc_query(self.handle, QUERY_IMPL_INFO_STR, 0,
                                               ctypes.byref(name))
        return (name.value or b"").decode()

    def arg_size(self, arg: int) -> int:
        md = self._rt.lib.dnnl_primitive_desc_query_md(self.handle, QUERY_EXEC_ARG_MD, arg)
        return self._rt.lib.dnnl_memory_desc_get_size(md) if md else 0

    def __del__(self):
        if self.handle and self._rt.lib is not None:
            self._rt.lib.dnnl_primitive_desc_destroy(self.handle)


class Primitive:
    """A created primitive with a memory object per argument, run on the caller's arrays.

    ``extra`` names arguments whose buffers the primitive owns (a workspace kept between a
    forward and its backward is the caller's; the scratchpad is always the primitive's).
    Calls on one primitive are serialized (its memory objects and scratchpad are shared).
    """

    def __init__(self, rt, pd: PrimitiveDesc, args, xp, layouts=None, outputs=(),
                 check_impl=True, work=None):
        self._rt = rt
        self.work = SMALL_WORK if work is None else work     # see use_threads
        self.pd = pd
        self.implementation = pd.implementation()
        if check_impl and self.implementation.startswith("ref"):
            raise DnnlError(f"oneDNN offers only its reference code ({self.implementation})")
        self.handle = _p()
        rt.check(rt.lib.dnnl_primitive_create(ctypes.byref(self.handle), pd.handle),
                 "primitive")
        self._lock = threading.Lock()
        self._memories = {}
        names = list(args) + ["scratchpad"]
        for name in names:
            number = ARGS[name]
            md = rt.lib.dnnl_primitive_desc_query_md(pd.handle, QUERY_EXEC_ARG_MD, number)
            memory = _p()
            rt.check(rt.lib.dnnl_memory_create(ctypes.byref(memory), md, rt.engine, None),
                     f"memory for {name}")
            self._memories[name] = memory
        self._exec = (_ExecArg * len(names))(
            *[_ExecArg(ARGS[name], self._memories[name]) for name in names])
        size = pd.arg_size(ARGS["scratchpad"])
        self._scratchpad = xp.empty(max(size, 1), dtype="uint8")
        self.sizes = {name: pd.arg_size(ARGS[name]) for name in args}
        # Arguments given in the caller's layout where the primitive chose another (its
        # ``any`` weights): a reorder into (or, for outputs, out of) a buffer of its own.
        self._reorders = {}
        for name, user in (layouts or {}).items():
            chosen = rt.lib.dnnl_primitive_desc_query_md(pd.handle, QUERY_EXEC_ARG_MD,
                                                         ARGS[name])
            if rt.lib.dnnl_memory_desc_equal(chosen, user.handle):
                continue
            src, dst = (chosen, user.handle) if name in outputs else (user.handle, chosen)
            reorder = Primitive(rt, PrimitiveDesc(
                rt, lambda h: rt.lib.dnnl_reorder_primitive_desc_create(
                    h, src, rt.engine, dst, rt.engine, None), "reorder"),
                ("src", "dst"), xp, check_impl=False, work=self.work)
            buffer = xp.empty(max(pd.arg_size(ARGS[name]), 1), dtype="uint8")
            self._reorders[name] = (reorder, buffer, name in outputs)

    def __call__(self, **arrays) -> None:
        lib = self._rt.lib
        with self._lock:
            use_threads(self._rt, self.work)
            for name, array in arrays.items():
                staged = self._reorders.get(name)
                if staged is not None:
                    reorder, buffer, output = staged
                    if not output:
                        reorder(src=array, dst=buffer)
                    array = buffer
                lib.dnnl_memory_set_data_handle(self._memories[name],
                                                array.ctypes.data)
            lib.dnnl_memory_set_data_handle(self._memories["scratchpad"],
                                            self._scratchpad.ctypes.data)
            self._rt.check(lib.dnnl_primitive_execute(self.handle, self._rt.stream,
                                                      len(self._exec), self._exec),
                           f"execute ({self.implementation})")
            lib.dnnl_stream_wait(self._rt.stream)
            for name, (reorder, buffer, output) in self._reorders.items():
                if output:
                    reorder(src=buffer, dst=arrays[name])

    def __del__(self):
        lib = self._rt.lib
        if lib is None:
            return
        for memory in getattr(self, "_memories", {}).values():
            lib.dnnl_memory_destroy(memory)
        if getattr(self, "handle", None):
            lib.dnnl_primitive_destroy(self.handle)
