"""Initial values of weights that a file is about to overwrite.

Loading a model rebuilds it from its config, which builds every layer and so runs every
weight's initializer, and then writes the file's values over all of them. Inside
:func:`deferred` (the loaders' scope), :func:`draw` gives zeros and notes the initializer
instead; when the scope ends without an error, the noted initializers run for the weights
the file did not write (whose version is still 0). Every weight ends as it did when all
initializers ran first; a 3000-layer model's load no longer spends a seventh of its time
drawing random numbers it throws away.
"""
from __future__ import annotations

import contextlib
import contextvars

from .. import initializers

_pending: contextvars.ContextVar = contextvars.ContextVar("lamina_deferred_initializers",
                                                          default=None)
_ZEROS = initializers.Zeros()


def draw(initializer, shape, dtype):
    """``initializer(shape, dtype=dtype)``, or zeros to be replaced inside :func:`deferred`
    (call :func:`note` with the variable made from them)."""
    if _pending.get() is None:
        return initializer(shape, dtype=dtype)
    return _ZEROS(shape, dtype=dtype)


def note(variable, initializer, shape, dtype) -> None:
    """Remember ``variable``'s initializer when :func:`draw` gave it zeros."""
    pending = _pending.get()
    if pending is not None:
        pending.append((variable, initializer, shape, dtype))


@contextlib.contextmanager
def deferred():
    """Defer the initializers of the weights built inside the block; when it ends without
    an error, run those of the weights nothing wrote since."""
    pending: list = []
    token = _pending.set(pending)
    try:
        yield
    finally:
        _pending.reset(token)
    for variable, initializer, shape, dtype in pending:
        if variable._version == 0:
            variable.assign(initializer(shape, dtype=dtype))
