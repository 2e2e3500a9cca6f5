"""The state half of an optimizer: the Variables it owns, how they are created, and how
they are saved and restored.

``optimizer.variables`` lists them in Keras 3's order, which saved files rely on:
``iteration``, ``learning_rate`` (unless a schedule gives the rate), then what ``build``
creates: per trained variable its moving average and gradient accumulator (when those
options are on), then each subclass's slots (``<variable path>_momentum``, ...).
"""
from __future__ import annotations

import warnings

from .. import backend as backend_module
from .. import initializers, ops
from ..core.variable import Variable
from ..errors import ShapeError, describe_shape


class OptimizerState:
    """Variable bookkeeping shared by every optimizer (see :class:`Optimizer`)."""

    def _init_state(self) -> None:
        self.built = False
        self._variables: list[Variable] = []
        self._trainable_variables: list[Variable] = []
        self._trainable_variables_indices: dict[int, int] = {}
        self._backend = backend_module.get_backend()    # where new state is created
        self._step_cache: dict = {}                      # see _per_step

    def _track(self, variable: Variable) -> Variable:
        variable.path = f"{self.name}/{variable.name}"
        self._variables.append(variable)
        return variable

    def _untrack(self, variable: Variable) -> None:
        self._variables = [v for v in self._variables if v is not variable]

    @property
    def variables(self) -> list:
        return list(self._variables)

    def build(self, variables) -> None:
        """Create the per-variable state; subclasses call this first, then add slots."""
        variables = list(variables)
        for i, v in enumerate(variables):
            if not isinstance(v, Variable):
                raise TypeError(f"{type(self).__name__}.build: expected a list of "
                                f"lamina.Variable; element {i} is a {type(v).__name__}")
        if variables:
            self._move_state_to(variables[0].backend)
        self._model_variables_moving_average, self._accumulated_gradients = [], []
        for i, variable in enumerate(variables):
            self._trainable_variables_indices[self._var_key(variable)] = i
            if self.use_ema:
                self._model_variables_moving_average.append(
                    self.add_variable_from_reference(variable, name="average"))
            if self.gradient_accumulation_steps:
                self._accumulated_gradients.append(
                    self.add_variable_from_reference(variable, name="gradient_accumulator"))
        self._trainable_variables = variables
        self.built = True

    def _move_state_to(self, backend) -> None:
        """Keep the optimizer's state on the device of the variables it trains."""
        self._backend = backend
        for variable in self._variables:
            if variable.backend is not backend:
                moved = variable.to(backend)
                variable.data, variable.backend = moved.data, backend

    def _var_key(self, variable) -> int:
        """The key a trained variable is known by in the optimizer's tables (Keras's)."""
        return id(variable)

    def _get_variable_index(self, variable) -> int:
        return self._trainable_variables_indices[self._var_key(variable)]

    def add_variable(self, shape, initializer="zeros", dtype=None, aggregation="mean",
                     name=None) -> Variable:
        """A new non-trainable state variable, owned and listed by this optimizer."""
        with backend_module.use(self._backend):
            variable = Variable(initializers.get(initializer), shape=tuple(shape),
                                dtype=dtype, trainable=False, aggregation=aggregation,
                                name=name)
        return self._track(variable)

    def add_variable_from_reference(self, reference_variable, name=None,
                                    initializer="zeros") -> Variable:
        """A slot shaped and typed like ``reference_variable``, named as Keras names it:
        ``"<reference path with / as _>_<name>"`` (e.g. ``dense_kernel_momentum``)."""
        name = name or "var"
        prefix = getattr(reference_variable, "path", None)
        if prefix is None:
            prefix = str(reference_variable.name).replace(":", "_")
        return self.add_variable(reference_variable.shape, initializer=initializer,
                                 dtype=reference_variable.dtype,
                                 name=f"{prefix.replace('/', '_')}_{name}")

    def add_optimizer_variables(self, trainable_variables, name, initializer="zeros"):
        """One slot per variable for each name in ``name`` (a string or a list), created
        variable by variable (interleaved, Keras's order); a list, or a tuple of lists. A
        variable with ``overwrite_with_gradient`` (float8 state) gets None, as in Keras:
        it is assigned, never stepped."""
        names = [name] if isinstance(name, str) else list(name)
        inits = (list(initializer) if isinstance(initializer, (list, tuple))
                 else [initializer] * len(names))
        if len(inits) != len(names):
            raise ValueError(f"{type(self).__name__}.add_optimizer_variables: expected one "
                             f"initializer per name; received names={names} and "
                             f"initializer={initializer!r}")
        slots = tuple([] for _ in names)
        for variable in trainable_variables:
            overwritten = getattr(variable, "overwrite_with_gradient", False)
            for i, (slot_name, init) in enumerate(zip(names, inits)):
                slots[i].append(None if overwritten else
                                self.add_variable_from_reference(variable, slot_name, init))
        return slots[0] if isinstance(name, str) else slots

    def _per_step(self, key, compute):
        """``compute()``, evaluated once per ``apply`` for each ``key``: scalars that all
        variables of one dtype share in a step (bias corrections) are built once."""
        cache = self._step_cache
        if key not in cache:
            cache[key] = compute()
        return cache[key]

    # ------------------------------------------------------------------ in-place writes
    # Subclasses write through these. While gradient accumulation holds an update back,
    # ``_update_gate`` is a bool tensor and each write keeps the old value where it is False.
    def assign(self, variable, value) -> None:
        if self._update_gate is not None:
            value = ops.where(self._update_gate, value, variable)
        variable.assign(value)

    def assign_add(self, variable, value) -> None:
        if self._update_gate is None:
            variable.assign_add(value)
        else:
            self.assign(variable, variable + value)

    def assign_sub(self, variable, value) -> None:
        if self._update_gate is None:
            variable.assign_sub(value)
        else:
            self.assign(variable, variable - value)

    # ------------------------------------------------------------------ extras, saving
    def scale_loss(self, loss):
        """``loss * loss_scale_factor`` (the gradients are divided by it again in apply)."""
        return loss if self.loss_scale_factor is None else loss * self.loss_scale_factor

    def finalize_variable_values(self, var_list) -> None:
        """With ``use_ema``, copy the moving averages into the variables (end of fit)."""
        if self.use_ema and self.built:
            # by identity: a variable the optimizer was not built with keeps its value
            for variable in var_list:
                index = self._trainable_variables_indices.get(self._var_key(variable))
                if index is not None:
                    variable.assign(self._model_variables_moving_average[index])

    def set_weights(self, weights) -> None:
        """Assign ``weights`` (arrays in ``variables`` order) to the optimizer's state."""
        if not self.built:
            raise ValueError(f"{type(self).__name__}.set_weights: You are calling "
                             f"set_weights() on an optimizer that has not been built yet; "
                             f"call optimizer.build(trainable_variables) first")
        weights = list(weights)
        if len(weights) != len(self._variables):
            raise ValueError(f"{type(self).__name__}.set_weights: expected "
                             f"{len(self._variables)} arrays; received {len(weights)}")
        for variable, weight in zip(self._variables, weights):
            if tuple(getattr(weight, "shape", ())) != tuple(variable.shape):
                raise ShapeError(f"{type(self).__name__}.set_weights: variable "
                                 f"'{variable.path}' has shape "
                                 f"{describe_shape(variable.shape)}; received shape "
                                 f"{describe_shape(getattr(weight, 'shape', ()))}")
            variable.assign(weight)

    def save_own_variables(self, store) -> None:
        """Write the state as ``store["0"], store["1"], ...`` (Keras's ``.keras`` layout)."""
        for i, variable in enumerate(self.variables):
            store[str(i)] = variable.numpy()

    def load_own_variables(self, store) -> None:
        variables = self.variables        # a MultiOptimizer's include its inner ones'
        if len(store.keys()) != len(variables):
            warnings.warn(f"Skipping variable loading for optimizer '{self.name}': it has "
                          f"{len(variables)} variables and the saved optimizer has "
                          f"{len(store.keys())}" + ("; it has not been built yet"
                                                    if not self.built else ""), stacklevel=2)
            return
        for i, variable in enumerate(variables):
            variable.assign(store[str(i)])
