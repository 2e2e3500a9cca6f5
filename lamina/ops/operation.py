"""Keras 3's ``keras.Operation``: the base class for a user-defined op written with
``lamina.ops``. Subclasses define ``call(*args, **kwargs)`` (and may define
``compute_output_spec``); calling the instance runs ``call`` on concrete tensors, and on
symbolic tensors (the functional API, a traced graph) the ops inside record themselves, so
one definition serves eager mode, graph mode and the tape.
"""
from __future__ import annotations

import itertools

from .. import tree
from ..core.symbolic import SymbolicTensor

_names = itertools.count()


class Operation:
    """``Operation(name=None)``; subclass and define ``call``."""

    def __init__(self, name=None):
        if name is not None and (not isinstance(name, str) or not name or "/" in name):
            raise ValueError(f"{type(self).__name__}: argument 'name' must be a non-empty "
                             f"string without '/'; received {name!r}")
        self.name = name or f"{type(self).__name__.lower()}_{next(_names)}"

    def __call__(self, *args, **kwargs):
        return self.call(*args, **kwargs)

    def call(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__}: an Operation subclass must define "
                                  "call(*args, **kwargs)")

    def symbolic_call(self, *args, **kwargs):
        return self.call(*args, **kwargs)

    def compute_output_spec(self, *args, **kwargs):
        """Symbolic tensors with the outputs' shapes and dtypes (``call`` traced on
        symbolic stand-ins of the tensor arguments)."""
        def symbol(x):
            if hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(x, SymbolicTensor):
                return SymbolicTensor(tuple(x.shape), str(x.dtype))
            return x
        return self.call(*tree.map_structure(symbol, list(args)),
                         **tree.map_structure(symbol, kwargs))

    def get_config(self):
        return {"name": self.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)
