"""Decoupled weight decay (Loshchilov & Hutter), shared by every optimizer: with
``weight_decay`` set, each step first shrinks each variable, ``v -= v * weight_decay *
lr``, then applies the optimizer's own update. Variables can be left out by identity or
by name."""
from __future__ import annotations

import re

from .. import ops


class WeightDecay:
    """The weight-decay part of :class:`~lamina.optimizers.Optimizer`."""

    def exclude_from_weight_decay(self, var_list=None, var_names=None) -> None:
        """Skip weight decay for the variables in ``var_list``, and for every variable
        whose name contains one of ``var_names`` (regular expressions, e.g. ``["bias"]``).
        Call it before the optimizer is built."""
        if self.built:
            raise ValueError(f"{type(self).__name__}.exclude_from_weight_decay: can only be "
                             f"configured before the optimizer is built")
        self._exclude_from_weight_decay = {id(v) for v in var_list or ()}
        self._exclude_from_weight_decay_pattern = (
            re.compile("|".join(sorted(set(var_names)))) if var_names else None)

    def _use_weight_decay(self, variable) -> bool:
        if id(variable) in self._exclude_from_weight_decay:
            return False
        pattern = self._exclude_from_weight_decay_pattern
        return pattern is None or pattern.search(variable.name) is None

    def _apply_weight_decay(self, variables, learning_rate=None) -> None:
        """``v -= v * weight_decay * lr`` for each variable not excluded; ``learning_rate``
        defaults to the optimizer's current rate (Keras's signature has none)."""
        if self.weight_decay is None:
            return
        if learning_rate is None:
            learning_rate = self._learning_rate_tensor()
        for variable in variables:
            if self._use_weight_decay(variable):
                lr = ops.cast(learning_rate, variable.dtype)
                decay = ops.multiply(ops.multiply(variable, self.weight_decay), lr)
                self.assign(variable, ops.subtract(variable, decay))
