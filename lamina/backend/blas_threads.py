"""OpenBLAS's thread count, found in the loaded library: the thread policy
(thread_policy.py) holds it at one thread once oneDNN's OpenMP pool owns the cores. Where
numpy's BLAS is not an OpenBLAS this module can find (another BLAS, or no ``/proc`` to look
in), :func:`blas_functions` is empty and nothing is changed.
"""
from __future__ import annotations

import ctypes
import os

import numpy

_SYMBOLS = ("scipy_openblas_{}64_", "scipy_openblas_{}", "openblas_{}64_", "openblas_{}")
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


def blas_functions():
    """(get, set) of the loaded OpenBLAS's thread count, or () where there is none."""
    return _blas()
