"""Keras 3's ``keras.name_scope``: a context manager that prefixes the paths of the
variables created inside it (``with keras.name_scope("block1"): layer.build(...)`` gives
``block1/dense/kernel``), with Keras's keyword arguments."""
from __future__ import annotations

from . import call_context


class name_scope:  # noqa: N801  (Keras's spelling: it reads as a function)
    """``name``: the scope's name. Keyword arguments, as Keras: ``deduplicate`` (default
    True: entering a scope of the same name as the current innermost one adds nothing),
    ``override_parent`` (a "/"-separated path that replaces the enclosing scopes while this
    one is active) and ``caller`` (the object opening the scope, kept as ``.caller``).

    Args:
        name: the scope's name.
        **kwargs: ``deduplicate``, ``override_parent`` and ``caller``, as above.


    Example:

    >>> import lamina as keras
    >>> with keras.name_scope("encoder"):
    ...     pass
    """

    def __init__(self, name, **kwargs):
        if not isinstance(name, str) or not name:
            raise ValueError(f"name_scope: argument 'name' must be a non-empty string; "
                             f"received {name!r}")
        unknown = set(kwargs) - {"caller", "deduplicate", "override_parent"}
        if unknown:
            raise TypeError(f"name_scope: unrecognized keyword arguments {sorted(unknown)}; "
                            "expected caller, deduplicate or override_parent")
        self.name = name
        self.caller = kwargs.get("caller")
        self.deduplicate = kwargs.get("deduplicate", True)
        self.override_parent = kwargs.get("override_parent")
        self._saved = None

    def __enter__(self):
        scope = call_context.scope_stack()
        self._saved = list(scope)
        if self.override_parent is not None:
            scope[:] = [p for p in self.override_parent.split("/") if p]
        if not (self.deduplicate and scope and scope[-1] == self.name):
            scope.append(self.name)
        return self

    def __exit__(self, *exc):
        call_context.scope_stack()[:] = self._saved
        return False
