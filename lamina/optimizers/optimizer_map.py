"""``OptimizerMap``: which optimizer trains which variable, by variable path (Keras 3's
``keras.optimizers.OptimizerMap``, used by :class:`MultiOptimizer`).

A key is an exact variable path or a regular expression matched against the whole path
(``"encoder/.*"``); an exact key wins, more than one matching pattern is an error, and a
path nothing matches gets ``default_optimizer``.
"""
from __future__ import annotations

import re
from collections.abc import MutableMapping

from ..registry import deserialize_keras_object, register_builtin, serialize_keras_object
from .loss_scale_optimizer import LossScaleOptimizer
from .optimizer import Optimizer


def check_inner_optimizer(owner: str, optimizer, what: str) -> None:
    """An optimizer that may sit inside a MultiOptimizer: not another MultiOptimizer, and
    not a LossScaleOptimizer (which wraps the MultiOptimizer instead). Keras's phrases:
    "optimizer cannot be MultiOptimizer." for a map entry, "... cannot be used inside an
    MultiOptimizer." when building."""
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{owner}: {what} must be a lamina Optimizer instance; received "
                        f"{optimizer!r} of type {type(optimizer).__name__}")
    kind = ("MultiOptimizer" if getattr(optimizer, "_is_multi_optimizer", False) else
            "LossScaleOptimizer" if isinstance(optimizer, LossScaleOptimizer) else None)
    if kind is None:
        return
    hint = (" Wrap the MultiOptimizer in the LossScaleOptimizer instead."
            if kind == "LossScaleOptimizer" else "")
    rule = (f"a {kind} cannot be used inside an MultiOptimizer." if owner == "MultiOptimizer"
            else f"an inner optimizer cannot be {kind}.")
    raise ValueError(f"{owner}: {what} is a {kind}, and {rule}{hint} Received {optimizer!r}")


@register_builtin
class OptimizerMap(MutableMapping):
    """A mapping ``{path or pattern: optimizer}`` with a default for unmatched paths.

    Args:
        default_optimizer: the ``Optimizer`` for variables no key matches (not a
            MultiOptimizer nor a LossScaleOptimizer).
        optimizer_map: a dict ``{variable path or regular expression: optimizer}``, or
            None (default).

    Raises:
        TypeError: ``default_optimizer`` is not an optimizer, or ``optimizer_map`` is not a
            dict.
        ValueError: an optimizer is a MultiOptimizer or a LossScaleOptimizer.
    """

    _keras_module = "keras.optimizers"

    def __init__(self, default_optimizer, optimizer_map=None):
        check_inner_optimizer("OptimizerMap", default_optimizer,
                              "argument 'default_optimizer'")
        if optimizer_map is not None and not isinstance(optimizer_map, dict):
            raise TypeError(f"OptimizerMap: argument 'optimizer_map' must be a dict "
                            f"{{path or pattern: optimizer}} or None; received "
                            f"{optimizer_map!r}")
        self._default_optimizer = default_optimizer
        self._optimizer_map = {}
        for key, optimizer in (optimizer_map or {}).items():
            self[key] = optimizer

    @property
    def default_optimizer(self):
        return self._default_optimizer

    def __getitem__(self, key):
        if key in self._optimizer_map:
            return self._optimizer_map[key]
        matches = [pattern for pattern in self._optimizer_map
                   if re.fullmatch(pattern, key)]
        if len(matches) > 1:
            raise ValueError(f"OptimizerMap: variable path {key!r} matches more than one "
                             f"pattern: {matches}; a path must match at most one")
        return self._optimizer_map[matches[0]] if matches else self._default_optimizer

    def __setitem__(self, key, optimizer) -> None:
        if not isinstance(key, str):
            raise TypeError(f"OptimizerMap: a key must be a string (a variable path or a "
                            f"regular expression); received {key!r}")
        if key in self._optimizer_map:
            raise ValueError(f"OptimizerMap: key {key!r} is already mapped to "
                             f"{self._optimizer_map[key]!r}; keys must be unique")
        check_inner_optimizer("OptimizerMap", optimizer, f"the optimizer for {key!r}")
        self._optimizer_map[key] = optimizer

    def __delitem__(self, key) -> None:
        del self._optimizer_map[key]

    def __len__(self) -> int:
        return len(self._optimizer_map)

    def __iter__(self):
        return iter(self._optimizer_map)

    def __call__(self, variable):
        """The optimizer for ``variable``, looked up by its path."""
        return self[variable.path]

    def get_config(self) -> dict:
        return {"default_optimizer": serialize_keras_object(self._default_optimizer),
                "optimizer_map": serialize_keras_object(self._optimizer_map)}

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None):
        from . import deserialize      # the package imports this module before defining it
        default = deserialize(config["default_optimizer"], custom_objects)
        mapping = {key: deserialize(value, custom_objects)
                   for key, value in (config.get("optimizer_map") or {}).items()}
        return cls(default, mapping)
