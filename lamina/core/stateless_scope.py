"""Keras 3's ``StatelessScope`` and ``SymbolicScope``.

Inside a :class:`StatelessScope` no Variable changes:

- an op that reads a Variable listed in ``state_mapping`` reads the mapped value instead
  (``core/mode.py`` asks the innermost open scope, after autocasting and before a graph
  trace's own variable reads, so a scope works eagerly and inside a trace);
- ``assign``/``assign_add``/``assign_sub`` record the new value in the scope
  (``scope.get_current_value(variable)``), and later reads in the scope see it;
- with ``collect_losses=True``, ``Layer.add_loss`` adds to ``scope.losses`` (and a layer's
  ``losses`` lists the ones it added); otherwise losses added in the scope are dropped.

Lamina creates a variable's value when the variable is created, also inside a scope, so
``initialize_variables`` needs no deferred work: a variable created in the scope holds its
initializer's value when it is first used outside, as in Keras either way.

With no scope open, reading and assigning variables (eagerly and while tracing) is exactly
as without this module. ``lamina.ops`` (above core) is reached through ``core/mode``.
"""
from __future__ import annotations

import threading

from ..errors import ShapeError, describe_shape
from . import mode
from .variable import Variable

_state = threading.local()


def get_stateless_scope():
    """The innermost StatelessScope open on this thread, or None."""
    return mode.current("stateless")


def in_stateless_scope() -> bool:
    return get_stateless_scope() is not None


class StatelessScope:
    """Run code without changing any Variable.

    ``state_mapping`` is a list of ``(variable, value)`` pairs: inside the scope, ops read
    ``value`` for ``variable``. Writes to variables are collected in the scope instead of
    applied; read them back with ``get_current_value``:

    >>> v = Variable([1.0, 2.0])
    >>> with StatelessScope([(v, [10.0, 20.0])]) as scope:
    ...     _ = v.assign_add([1.0, 1.0])
    >>> scope.get_current_value(v).numpy(), v.numpy()
    (array([11., 21.], dtype=float32), array([1., 2.], dtype=float32))

    Args:
        state_mapping: a list of ``(variable, value)`` pairs read instead of the
            variables inside the scope (default None).
        collect_losses: bool; keep the losses added by ``add_loss`` inside the scope in
            ``scope.losses`` (default False: they are dropped).
        initialize_variables: bool, as Keras (default True); Lamina gives a variable its
            value when it is created, so one made in the scope is ready either way.
    """

    def __init__(self, state_mapping=None, collect_losses=False, initialize_variables=True):
        self.collect_losses = bool(collect_losses)
        self.initialize_variables = bool(initialize_variables)
        self.losses = []
        self.state_mapping = {}
        for pair in state_mapping or ():
            key, value = pair
            if not isinstance(key, Variable):
                raise ValueError("StatelessScope: every key of argument 'state_mapping' must "
                                 f"be a Variable; received {key!r}")
            if isinstance(value, Variable):
                value = mode.ops().cast(value.value, key.dtype)
            else:
                value = mode.ops().convert_to_tensor(value, dtype=key.dtype)
            if tuple(value.shape) != tuple(key.shape):
                raise ValueError(f"StatelessScope: the value for variable '{key.path}' must "
                                 f"have the variable's shape {tuple(key.shape)}; received "
                                 f"shape {tuple(value.shape)}")
            self.state_mapping[id(key)] = value
        self._previous = None

    def __enter__(self):
        mode.enter("stateless", self)
        return self

    def __exit__(self, *exc) -> None:
        mode.leave("stateless", self)

    def map_inputs(self, inputs: tuple) -> tuple:
        """``inputs`` with the variables this scope maps replaced by their values."""
        mapping = self.state_mapping
        if not any(isinstance(x, Variable) and id(x) in mapping for x in inputs):
            return inputs
        return tuple(mapping.get(id(x), x) if isinstance(x, Variable) else x for x in inputs)

    def record_write(self, variable, value) -> None:
        """``variable = value`` inside the scope (Variable.assign and its kin)."""
        value = mode.ops().convert_to_tensor(value, dtype=variable.dtype)
        if tuple(value.shape) != tuple(variable.shape):
            raise ShapeError(f"Variable '{variable.name}'.assign: expected a value of shape "
                             f"{describe_shape(variable.shape)}; received shape "
                             f"{describe_shape(value.shape)}")
        self.add_update((variable, value))

    def add_loss(self, loss) -> None:
        self.losses.append(loss)

    def add_update(self, update) -> None:
        """Record ``(variable, new_value)``: later reads in the scope see ``new_value``."""
        variable, value = update
        self.state_mapping[id(variable)] = value

    def get_current_value(self, variable):
        """The variable's value in this scope (mapped or assigned), or None."""
        return self.state_mapping.get(id(variable), None)


class SymbolicScope:
    """Marks code that runs on symbolic tensors only (Keras 3's ``SymbolicScope``): while it
    is open, ``in_symbolic_scope()`` is True."""

    def __enter__(self):
        self._previous = get_symbolic_scope()
        _state.symbolic = self
        return self

    def __exit__(self, *exc) -> None:
        _state.symbolic = self._previous


def get_symbolic_scope():
    return getattr(_state, "symbolic", None)


def in_symbolic_scope() -> bool:
    return get_symbolic_scope() is not None
