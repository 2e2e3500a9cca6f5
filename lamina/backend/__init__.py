"""Backend selection: ``set_backend(name)``, ``use(name)``, the ``LAMINA_BACKEND`` variable.

Also Keras's backend utilities (``floatx``, ``epsilon``, ``image_data_format``,
``clear_session``, ``backend()``) so ``keras.backend.*`` calls in users' scripts work.
Importing Lamina never imports cupy: the cupy backend is created on first request.
"""
from __future__ import annotations

import contextlib
import os
from typing import Iterator

from ..settings import (epsilon, floatx, image_data_format, register_clear_hook,
                        run_clear_hooks, set_epsilon, set_floatx, set_image_data_format)
from ..errors import BackendError
from .base import Backend
from .cupy_backend import CupyBackend
from .keras_utils import (
    get_uid, is_float_dtype, is_int_dtype, is_keras_tensor, reset_uids, result_type,
    standardize_dtype
)
from .numpy_backend import NumpyBackend

__all__ = ["Backend", "get_backend", "set_backend", "use", "backend_of", "available_backends",
           "floatx", "set_floatx", "epsilon", "set_epsilon", "image_data_format",
           "set_image_data_format", "clear_session", "backend", "get_uid", "is_float_dtype",
           "is_int_dtype", "is_keras_tensor", "result_type", "standardize_dtype"]

_NAMES = ("numpy", "cupy")
_instances: dict[str, Backend] = {}
_stack: list[Backend] = []
_default: Backend | None = None


def _create(name: str) -> Backend:
    if name == "numpy":
        return NumpyBackend()
    if name == "cupy":
        return CupyBackend()
    raise ValueError(f"unknown backend {name!r}; expected one of {_NAMES}")


def get_backend(name: str | Backend | None = None) -> Backend:
    """The backend called ``name``, or the active one (innermost ``use``, then the default)."""
    if isinstance(name, Backend):
        return name
    if name is None:
        if _stack:
            return _stack[-1]
        global _default
        if _default is None:
            _default = get_backend(os.environ.get("LAMINA_BACKEND", "numpy").strip().lower())
        return _default
    backend = _instances.get(name)
    if backend is None:
        backend = _instances[name] = _create(name)
    return backend


def set_backend(name: str) -> Backend:
    """Make ``name`` ("numpy" or "cupy") the default backend for new tensors."""
    global _default
    _default = get_backend(name)
    return _default


@contextlib.contextmanager
def use(name: str | Backend) -> Iterator[Backend]:
    """``with lamina.backend.use("cupy"): ...`` runs the block with that backend active."""
    backend = get_backend(name)
    _stack.append(backend)
    try:
        yield backend
    finally:
        _stack.pop()


def backend_of(array) -> Backend:
    """The backend an array belongs to (without importing cupy for numpy arrays)."""
    module = type(array).__module__.split(".")[0]
    if module == "numpy":
        return get_backend("numpy")
    if module == "cupy":
        return get_backend("cupy")
    raise BackendError(f"backend_of: expected a numpy or cupy array; received {type(array).__name__}")


def available_backends() -> list[str]:
    """Names of the backends that can be created on this machine."""
    names = ["numpy"]
    try:
        get_backend("cupy")
        names.append("cupy")
    except (ImportError, RuntimeError):
        pass
    return names


def backend() -> str:
    """Keras's ``keras.backend.backend()``: the active backend's name."""
    return get_backend().name


def clear_session(free_memory: bool = True) -> None:
    """Reset Lamina's global state, to start afresh in the same process.

    The auto-name counters (``dense``, ``dense_1``, ...), the ``get_uid`` counters and
    the compiled-function caches are reset.

    Args:
        free_memory: If ``True`` (default, as in Keras), also run Python's garbage
            collector and return the cupy memory pool's free blocks to the GPU when cupy
            is in use.

    Example:

    >>> lamina.layers.Dense(2).name
    'dense'
    >>> lamina.backend.clear_session()
    >>> lamina.layers.Dense(2).name
    'dense'
    """
    run_clear_hooks()
    reset_uids()
    if free_memory:
        import gc
        gc.collect()
        if "cupy" in _instances:
            _instances["cupy"].free_memory_pool()
