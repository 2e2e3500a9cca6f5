"""Keras's traceback filtering: an error raised to the user through one of Lamina's entry
points (a layer or op call, ``fit``/``evaluate``/``predict``, saving and loading) keeps
only the frames outside the ``lamina`` package -- the user's script, their layers'
``call``, other libraries -- so a one-line message is not buried under Lamina's
internals. ``lamina.config.disable_traceback_filtering()`` gives whole tracebacks back.

As in Keras, the exceptions an error was raised while handling are not printed with it
(they are, with filtering off); an explicit cause (``raise ... from``: a worker's
traceback, a kernel's error) is kept, filtered too.
"""
from __future__ import annotations

import functools
import os
import sys
import traceback
import types

from . import settings

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _internal(filename: str) -> bool:
    return os.path.abspath(filename).startswith(PACKAGE_DIR)


def user_stacklevel() -> int:
    """The ``stacklevel`` for a ``warnings.warn`` made by the caller that attributes the
    warning to the first frame outside Lamina -- the user's line -- however many of
    Lamina's frames (entry points, loops, callbacks) lie between."""
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and _internal(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    return level


def filtered(tb: types.TracebackType | None) -> types.TracebackType | None:
    """``tb`` without Lamina's frames (None when only Lamina's were in it: the error then
    shows the entry point it left through)."""
    kept = [(f, line) for f, line in traceback.walk_tb(tb)
            if not _internal(f.f_code.co_filename)]
    result = None
    for frame, line in reversed(kept):
        result = types.TracebackType(result, frame, frame.f_lasti, line)
    return result


def filtered_error(exc: BaseException) -> BaseException:
    """``exc`` made ready to re-raise filtered: its traceback and its explicit cause's (a
    worker's traceback, a kernel's error: kept, since they say what went wrong) without
    Lamina's frames, and the exceptions it was raised while handling not shown."""
    cause = exc.__cause__
    if cause is not None and cause.__traceback__ is not None:
        cause.with_traceback(filtered(cause.__traceback__))
    exc.__suppress_context__ = True
    return exc.with_traceback(filtered(exc.__traceback__))


def filter_traceback(fn):
    """Decorator for an entry point: errors leave it with Lamina's frames removed (while
    ``settings.is_traceback_filtering_enabled()``)."""

    @functools.wraps(fn)
    def entry_point(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            if not settings.is_traceback_filtering_enabled():
                raise
            raise filtered_error(exc)

    return entry_point
