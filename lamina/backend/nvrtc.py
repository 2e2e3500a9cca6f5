"""Compile CUDA C to PTX with NVRTC through ctypes: no GPU, no driver, no cupy import.

It needs the ``cuda-compile`` extra: ``nvidia-cuda-nvrtc-cu12`` (libnvrtc),
``nvidia-cuda-runtime-cu12`` (``cuda_fp16.h``, which CuPy's ``float16`` wraps) and
``cupy-cuda12x`` (CuPy's device headers, ``cupy/carray.cuh`` and ``cupy/float16.cuh``).
:func:`unavailable_reason` says precisely what is missing; :func:`compile_ptx` raises
:class:`CudaCompileError` with NVRTC's log when a source does not compile.
"""
from __future__ import annotations

import ctypes
import functools
import importlib.util
import os

from ..errors import BackendError

# The oldest virtual architecture CUDA 12.9 compiles without a deprecation warning.
DEFAULT_ARCH = "compute_75"


class CudaCompileError(BackendError):
    """NVRTC rejected a CUDA source."""


def _package_dir(name: str, *parts: str):
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    path = os.path.join(list(spec.submodule_search_locations)[0], *parts)
    return path if os.path.exists(path) else None


@functools.lru_cache(maxsize=None)
def _toolchain():
    """(libnvrtc, include dirs) or a string saying what is missing."""
    lib_dir = _package_dir("nvidia.cuda_nvrtc", "lib")
    if lib_dir is None:
        return "the nvidia-cuda-nvrtc-cu12 wheel is not installed (no nvidia/cuda_nvrtc/lib)"
    names = sorted(n for n in os.listdir(lib_dir) if n.startswith("libnvrtc.so"))
    if not names:
        return f"no libnvrtc.so in {lib_dir}"
    try:
        lib = ctypes.CDLL(os.path.join(lib_dir, names[0]))
    except OSError as exc:
        return f"libnvrtc cannot be loaded: {exc}"
    runtime_include = _package_dir("nvidia.cuda_runtime", "include")
    if runtime_include is None:
        return ("the nvidia-cuda-runtime-cu12 wheel is not installed (no cuda_fp16.h for "
                "CuPy's float16)")
    cupy_include = _package_dir("cupy", "_core", "include")
    if cupy_include is None:
        return "cupy-cuda12x is not installed (no CuPy device headers cupy/carray.cuh)"
    return lib, (cupy_include, runtime_include)


def unavailable_reason():
    """None when :func:`compile_ptx` can run here, else why not."""
    found = _toolchain()
    return found if isinstance(found, str) else None


def version() -> tuple:
    """NVRTC's (major, minor)."""
    lib = _loaded()[0]
    major, minor = ctypes.c_int(), ctypes.c_int()
    lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
    return major.value, minor.value


def _loaded():
    found = _toolchain()
    if isinstance(found, str):
        raise BackendError(f"NVRTC is unavailable: {found}")
    return found


def _log(lib, program) -> str:
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(program, ctypes.byref(size))
    buffer = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(program, buffer)
    return buffer.value.decode(errors="replace")


def compile_ptx(source: str, name: str = "kernel.cu", arch: str = DEFAULT_ARCH) -> str:
    """The PTX of ``source`` for ``arch``; raises :class:`CudaCompileError` with NVRTC's log
    when it does not compile (warnings count as errors)."""
    lib, includes = _loaded()
    program = ctypes.c_void_p()
    status = lib.nvrtcCreateProgram(ctypes.byref(program), source.encode(), name.encode(),
                                    0, None, None)
    if status != 0:
        raise CudaCompileError(f"nvrtcCreateProgram({name}) failed with status {status}")
    try:
        options = [f"-arch={arch}", "-std=c++17"] + [f"-I{path}" for path in includes]
        argv = (ctypes.c_char_p * len(options))(*(o.encode() for o in options))
        status = lib.nvrtcCompileProgram(program, len(options), argv)
        log = _log(lib, program).strip()
        if status != 0 or log:
            raise CudaCompileError(f"NVRTC {'failed on' if status else 'warned about'} "
                                   f"{name} (arch {arch}, status {status}):\n{log}")
        size = ctypes.c_size_t()
        lib.nvrtcGetPTXSize(program, ctypes.byref(size))
        buffer = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetPTX(program, buffer)
        return buffer.value.decode()
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(program))
