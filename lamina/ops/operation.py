"""Keras 3's ``keras.Operation``: the base class for a user-defined op written with
``lamina.ops``. Subclasses define ``call(*args, **kwargs)`` (and may define
``compute_output_spec``); calling the instance runs ``call`` on concrete tensors, and on
symbolic tensors (the functional API, a traced graph) the ops inside record themselves, so
one definition serves eager mode, graph mode and the tape.

As in Keras, a subclass that does not define ``get_config`` gets one from the arguments its
constructor was called with, when they are plain values (str, int, float, bool, None and
lists/tuples/dicts of them); otherwise ``get_config`` raises NotImplementedError. With a
``quantization_mode`` set, calls run ``quantized_call``. Each call on symbolic tensors is
remembered: ``input`` and ``output`` are those of the first.
"""
from __future__ import annotations

import inspect
import itertools

from .. import tree
from ..core.symbolic import SymbolicTensor

_names = itertools.count()
_PLAIN = (str, int, float, bool, type(None))


def _auto_config(cls, args, kwargs):
    """(config or None, why not): the constructor's arguments, defaults included, without
    ``self`` and ``name``."""
    signature = inspect.signature(cls.__init__)
    params = list(signature.parameters.values())[1:]
    try:
        bound = signature.bind(None, *args, **kwargs)
    except TypeError:
        return None, "values"
    if any(p.kind == p.POSITIONAL_ONLY for p in params):
        return None, "positional"
    bound.apply_defaults()
    config = dict(bound.arguments)
    config.pop(next(iter(signature.parameters)))
    for p in params:
        if p.kind == p.VAR_KEYWORD:
            config.update(config.pop(p.name, {}))
        elif p.kind == p.VAR_POSITIONAL and config.pop(p.name, ()):
            return None, "positional"
    config.pop("name", None)
    try:
        plain = all(isinstance(v, _PLAIN) for v in tree.flatten(config))
    except TypeError:
        plain = False
    return (config, None) if plain else (None, "values")


class _RecordsArguments:
    """Keeps the constructor's arguments for ``get_config`` (in a base class, so that
    ``inspect.signature(Operation)`` reads ``Operation.__init__``, as Keras's does)."""

    def __new__(cls, *args, **kwargs):
        instance = super().__new__(cls)
        instance.__dict__["_auto_config"] = _auto_config(cls, args, kwargs)
        instance.__dict__["_inbound_nodes"] = []
        return instance


class Operation(_RecordsArguments):
    """``Operation(name=None)``; subclass and define ``call``.

    Args:
        name: the operation's name (None: the class name in snake_case, made unique).


    Example:

    >>> import lamina as keras
    >>> class Double(keras.Operation):
    ...     def call(self, x):
    ...         return x * 2
    >>> Double()(keras.ops.convert_to_tensor([1.0, 2.0])).numpy()
    array([2., 4.], dtype=float32)
    """

    def __init__(self, name=None):
        if name is not None and (not isinstance(name, str) or not name or "/" in name):
            raise ValueError(f"{type(self).__name__}: argument 'name' must be a string and "
                             f"cannot contain character `/` (nor be empty); received "
                             f"{name!r}")
        self.name = name or f"{type(self).__name__.lower()}_{next(_names)}"

    def __call__(self, *args, **kwargs):
        call = self.quantized_call if getattr(self, "quantization_mode", None) is not None \
            else self.call
        outputs = call(*args, **kwargs)
        inputs = [x for x in tree.flatten((args, kwargs)) if isinstance(x, SymbolicTensor)]
        if inputs:
            self._inbound_nodes.append((inputs, outputs))
        return outputs

    def quantized_call(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__}: quantization_mode is set but the "
                                  f"Operation defines no quantized_call(*args, **kwargs)")

    @property
    def input(self):
        """The symbolic input tensors of the first symbolic call (a list)."""
        return self._node(0)

    @property
    def output(self):
        """The output of the first symbolic call (a list for several outputs)."""
        outputs = self._node(1)
        return list(outputs) if isinstance(outputs, tuple) else outputs

    def _node(self, part):
        if not self._inbound_nodes:
            raise AttributeError(f"{type(self).__name__}: the operation has never been called "
                                 f"on symbolic tensors, so it has no input or output")
        return self._inbound_nodes[0][part]

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
        """``{"name": ...}`` plus, for a subclass without its own ``get_config``, the
        constructor's arguments (``name`` left out when the constructor cannot take it)."""
        config = {"name": self.name}
        if type(self).get_config is not Operation.get_config:
            return config                   # a subclass calling super().get_config()
        auto, why = self.__dict__.get("_auto_config", (None, "values"))
        if auto is None:
            cls = type(self).__name__
            if why == "positional":
                raise NotImplementedError(
                    f"{cls}: get_config cannot be generated: the object was created with "
                    f"positional-only or variadic positional (*args) constructor arguments; "
                    f"remove them or override get_config() and from_config()")
            raise NotImplementedError(
                f"{cls}: get_config cannot be generated: the object was created with "
                f"constructor argument values that are not plain (str, int, float, bool, "
                f"None, or lists/dicts of them); override get_config()")
        params = inspect.signature(type(self).__init__).parameters
        takes_name = "name" in params or any(p.kind == p.VAR_KEYWORD
                                             for p in params.values())
        return {**config, **auto} if takes_name else dict(auto)

    @classmethod
    def from_config(cls, config):
        return cls(**config)
