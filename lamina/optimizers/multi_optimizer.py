"""``MultiOptimizer``: trains each variable with the optimizer an :class:`OptimizerMap`
(or any callable ``variable -> optimizer``) picks for it (Keras 3's
``keras.optimizers.MultiOptimizer``).

Each inner optimizer keeps its own rate, step counter and slots; the MultiOptimizer has
only its own ``iteration`` (and Keras's unused ``learning_rate``). ``variables`` lists
those two, then each inner optimizer's, in the order the inner optimizers were met:
the map's values, its default, then any the callable returned while building.
"""
from __future__ import annotations

from ..registry import register_builtin, serialize_keras_object
from .optimizer import Optimizer
from .optimizer_map import OptimizerMap, check_inner_optimizer


@register_builtin
class MultiOptimizer(Optimizer):
    """Delegates each variable to one inner optimizer; see the module docstring.

    Args:
        optimizer_map: an ``OptimizerMap``, a single ``Optimizer`` (used for every
            variable), or a callable ``variable -> optimizer``.
        loss_scale_factor: a float or None; the loss is multiplied by it and the gradients
            divided by it.
        name: a string, or None for an automatic unique name.

    Raises:
        TypeError: ``optimizer_map`` is none of the above.

    Example:

    >>> import lamina as keras
    >>> mapping = keras.optimizers.OptimizerMap(keras.optimizers.Adam(),
    ...                                         {"dense/.*": keras.optimizers.SGD()})
    >>> opt = keras.optimizers.MultiOptimizer(mapping)
    """

    _is_multi_optimizer = True

    def __init__(self, optimizer_map, loss_scale_factor=None, name=None):
        if isinstance(optimizer_map, Optimizer):
            # one optimizer for every variable (Keras accepts it here and fails at build)
            optimizer_map = OptimizerMap(default_optimizer=optimizer_map)
        if not callable(optimizer_map):
            raise TypeError(f"MultiOptimizer: argument 'optimizer_map' must be an "
                            f"OptimizerMap, an Optimizer or a callable variable -> "
                            f"optimizer; received {optimizer_map!r}")
        super().__init__(learning_rate=0.0, loss_scale_factor=loss_scale_factor, name=name)
        self._optimizer_map = optimizer_map
        self._inner_optimizers = []
        candidates = list(optimizer_map.values()) if hasattr(optimizer_map, "values") else []
        default = getattr(optimizer_map, "default_optimizer", None)
        for optimizer in candidates + ([default] if default is not None else []):
            self._adopt(optimizer)

    def _adopt(self, optimizer) -> None:
        if not any(optimizer is known for known in self._inner_optimizers):
            # As Keras: the MultiOptimizer's loss_scale_factor overrides the inner ones'.
            optimizer.loss_scale_factor = self.loss_scale_factor
            self._inner_optimizers.append(optimizer)

    @property
    def optimizers(self) -> list:
        return self._inner_optimizers

    @property
    def variables(self) -> list:
        result = list(self._variables)
        for optimizer in self._inner_optimizers:
            result.extend(optimizer.variables)
        return result

    @property
    def learning_rate(self):
        raise AttributeError("MultiOptimizer has no learning_rate: each inner optimizer has "
                             "its own; read it on optimizer.optimizers[i] instead")

    @learning_rate.setter
    def learning_rate(self, value):
        raise AttributeError(f"MultiOptimizer: the learning rate cannot be set (received "
                             f"{value!r}); set it on optimizer.optimizers[i] instead")

    lr = learning_rate

    @property
    def loss_scale_factor(self):
        return getattr(self, "_loss_scale_factor", None)

    @loss_scale_factor.setter
    def loss_scale_factor(self, value):
        self._loss_scale_factor = value
        for optimizer in getattr(self, "_inner_optimizers", ()):
            optimizer.loss_scale_factor = value

    @property
    def iterations(self):
        return self._iterations

    def build(self, var_list) -> None:
        if self.built:
            return
        var_list = list(var_list)
        chosen = []
        for variable in var_list:
            optimizer = self._optimizer_map(variable)
            check_inner_optimizer("MultiOptimizer", optimizer,
                                  f"the optimizer chosen for variable "
                                  f"'{getattr(variable, 'path', variable.name)}'")
            chosen.append(optimizer)
        for optimizer in chosen:
            self._adopt(optimizer)
        # Keras's table: variable key -> index of its optimizer in ``optimizers``
        self._var_to_optimizer_idx = {
            self._var_key(v): next(i for i, known in enumerate(self._inner_optimizers)
                                   if known is optimizer)
            for v, optimizer in zip(var_list, chosen)}
        for index, optimizer in enumerate(self._inner_optimizers):
            own = [v for v in var_list if self._var_to_optimizer_idx[self._var_key(v)] == index]
            if own:
                optimizer.build(own)
        super().build(var_list)

    def _optimizer_for(self, variable):
        index = self._var_to_optimizer_idx.get(self._var_key(variable))
        if index is None:
            raise ValueError(f"MultiOptimizer.apply: variable "
                             f"'{getattr(variable, 'path', variable.name)}' was not in "
                             f"the list the optimizer was built with")
        return self._inner_optimizers[index]

    def _split(self, grads, variables):
        groups = {id(optimizer): ([], []) for optimizer in self._inner_optimizers}
        for grad, variable in zip(grads, variables):
            group = groups[id(self._optimizer_for(variable))]
            group[0].append(grad)
            group[1].append(variable)
        return [(optimizer, *groups[id(optimizer)]) for optimizer in self._inner_optimizers]

    def apply(self, grads, trainable_variables=None) -> None:
        grads = list(grads)
        if not grads:
            return
        if trainable_variables is None:
            if not self.built:
                raise ValueError("MultiOptimizer.apply: the optimizer is not built; pass "
                                 "trainable_variables or call optimizer.build(variables)")
            trainable_variables = self._trainable_variables
        trainable_variables = list(trainable_variables)
        if len(grads) != len(trainable_variables):
            raise ValueError(f"MultiOptimizer.apply: expected one gradient per variable; "
                             f"received {len(grads)} gradients and "
                             f"{len(trainable_variables)} variables")
        self.build(trainable_variables)
        for optimizer, sub_grads, sub_variables in self._split(grads, trainable_variables):
            if sub_grads:
                optimizer.apply(sub_grads, sub_variables)
        self._iterations.assign_add(1)

    def finalize_variable_values(self, var_list) -> None:
        if not self.built:          # never applied (a train_step with its own optimizers)
            return
        for optimizer, _, variables in self._split([None] * len(var_list), var_list):
            if variables:
                optimizer.finalize_variable_values(variables)

    def set_weights(self, weights) -> None:
        if not self.built:
            raise ValueError("MultiOptimizer.set_weights: the optimizer is not built yet; "
                             "call optimizer.build(trainable_variables) first")
        weights = list(weights)
        if len(weights) != len(self.variables):
            raise ValueError(f"MultiOptimizer.set_weights: expected {len(self.variables)} "
                             f"arrays; received {len(weights)}")
        own = len(self._variables)
        super().set_weights(weights[:own])
        start = own
        for optimizer in self._inner_optimizers:
            count = len(optimizer.variables)
            if count and optimizer.built:
                optimizer.set_weights(weights[start:start + count])
            start += count

    def get_config(self) -> dict:
        return {"optimizer_map": serialize_keras_object(self._optimizer_map),
                "loss_scale_factor": self.loss_scale_factor, "name": self.name}

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None):
        config = dict(config)
        mapping = config.get("optimizer_map")
        if isinstance(mapping, dict):
            config["optimizer_map"] = OptimizerMap.from_config(mapping.get("config", {}),
                                                               custom_objects)
        return cls(**config)
