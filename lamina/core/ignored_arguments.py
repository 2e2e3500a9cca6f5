"""One warning per (class, argument) for Keras arguments Lamina accepts but cannot honour.

An argument accepted and silently ignored lets a user believe it took effect; where Lamina
cannot implement one (XLA compilation, worker processes, ...), the first use says so once
and names the class, the argument and why.
"""
from __future__ import annotations

import threading
import warnings
from ..traceback_filter import user_stacklevel

_warned: set = set()
_lock = threading.Lock()


def warn_ignored(owner: str, argument: str, value, reason: str) -> bool:
    """Warn (once per ``owner`` and ``argument``) that ``argument=value`` has no effect; the
    warning points at the user's line, however deep in Lamina this is called."""
    key = (owner, argument)
    with _lock:
        if key in _warned:
            return False
        _warned.add(key)
    warnings.warn(f"{owner}: argument '{argument}' ({argument}={value!r}) has no effect in "
                  f"Lamina: {reason}", UserWarning, stacklevel=user_stacklevel())
    return True
