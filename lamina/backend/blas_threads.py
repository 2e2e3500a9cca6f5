"""Cores for blocks of convolution work: numpy's OpenBLAS turned to one thread while a pool
of Python threads runs independent blocks (im2col copy + GEMM) side by side.

A convolution's im2col copy runs on one core while OpenBLAS's threads wait, and its GEMMs
are skinny (32-64 output channels), where OpenBLAS's threads scale poorly. Running whole
blocks in parallel, each with a one-threaded GEMM, keeps every core busy with both:
measured 1.45x on the VGG shapes (64x32x32x32->32 and 64x16x16x64->64, 2 cores). numpy
releases the GIL in copies and BLAS calls.

OpenBLAS's thread count is process-wide, so :func:`one_blas_thread` is a counted context:
the first holder sets one thread, the last one restores the count it found. Where numpy's
BLAS is not an OpenBLAS this module can find (another BLAS, or no ``/proc`` to look in),
:func:`available` is False and callers run their blocks in order, as before.
"""
from __future__ import annotations

import ctypes
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy

_SYMBOLS = ("scipy_openblas_{}64_", "scipy_openblas_{}", "openblas_{}64_", "openblas_{}")
_lock = threading.Lock()
_holders = 0
_restore = 1
_pool = None
_functions = None


def cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:                      # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _candidates() -> list:
    paths = []
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split()[-1]
                if "openblas" in os.path.basename(path).lower() and path not in paths:
                    paths.append(path)
    except OSError:                             # pragma: no cover - no /proc
        pass
    return paths


def _find():
    """(get, set) of the loaded OpenBLAS's thread count, or None."""
    numpy.empty(1)                              # numpy (with its BLAS) is loaded
    for path in _candidates():
        try:
            library = ctypes.CDLL(path)
        except OSError:
            continue
        for pattern in _SYMBOLS:
            get = getattr(library, pattern.format("get_num_threads"), None)
            set_ = getattr(library, pattern.format("set_num_threads"), None)
            if get is not None and set_ is not None:
                get.restype = ctypes.c_int
                set_.argtypes = [ctypes.c_int]
                return get, set_
    return None


def _blas():
    global _functions
    if _functions is None:
        _functions = _find() or ()
    return _functions


def available() -> bool:
    """Whether blocks can run in parallel: several cores and a BLAS whose threads we set."""
    return cores() > 1 and bool(_blas())


class one_blas_thread:
    """``with one_blas_thread(): ...``: OpenBLAS runs one thread per call inside."""

    def __enter__(self):
        global _holders, _restore
        get, set_ = _blas()
        with _lock:
            if _holders == 0:
                _restore = get()
                set_(1)
            _holders += 1
        return self

    def __exit__(self, *exc):
        global _holders
        _, set_ = _blas()
        with _lock:
            _holders -= 1
            if _holders == 0:
                set_(_restore)
        return False


def pool() -> ThreadPoolExecutor:
    """The process's worker threads (one per core), started on first use."""
    global _pool
    if _pool is None:
        with _lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(cores(), thread_name_prefix="conv-blocks")
    return _pool


_inside = threading.local()


def inside() -> bool:
    """Whether this thread runs a part of :func:`run_parts` (whose own parts would run in
    order)."""
    return getattr(_inside, "active", False)


def run_parts(fn, parts: list) -> list:
    """``[fn(part) for part in parts]``, the parts on the pool's threads with one BLAS
    thread each where that is available; in order otherwise (and inside a part, so that
    a part never waits for the pool it runs on)."""
    if len(parts) < 2 or not available() or inside():
        return [fn(part) for part in parts]

    def part(item):
        _inside.active = True
        try:
            return fn(item)
        finally:
            _inside.active = False

    with one_blas_thread():
        return list(pool().map(part, parts))


def split(items: list, n: int) -> list:
    """``items`` in ``n`` contiguous runs of near-equal length (no empty runs)."""
    n = max(1, min(n, len(items)))
    size, extra = divmod(len(items), n)
    runs, start = [], 0
    for k in range(n):
        stop = start + size + (k < extra)
        runs.append(items[start:stop])
        start = stop
    return runs
