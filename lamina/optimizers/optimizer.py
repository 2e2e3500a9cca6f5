"""The optimizer base class: it owns the training-step loop (Keras 3's
``keras.optimizers.Optimizer``).

A subclass gives two things: ``build(var_list)``, which creates its slot variables with
``add_variable_from_reference``, and ``update_step(gradient, variable, learning_rate)``,
which writes one variable's update with ops and ``self.assign``/``assign_add``/
``assign_sub``. The base class does everything else on each ``apply``: drops None
gradients, checks shapes, unscales, accumulates, clips, applies decoupled weight decay,
runs the updates, the weight moving average and the constraints, and counts the step.

>>> class PlainSGD(Optimizer):
...     def __init__(self, learning_rate=0.01, **kwargs):
...         super().__init__(learning_rate=learning_rate, **kwargs)
...     def update_step(self, gradient, variable, learning_rate):
...         lr = ops.cast(learning_rate, variable.dtype)
...         self.assign_sub(variable, ops.multiply(gradient, lr))

State lives in Variables updated in place: ``iterations`` (int64) and ``learning_rate``
(floatx) are Variables that per-step math reads with ops, so a callback that sets
``optimizer.learning_rate = 0.01`` changes the next step, compiled or not.
"""
from __future__ import annotations

from .. import ops
from ..core.stateless_scope import StatelessScope
from ..autograd.tape import no_grad
from ..core.tensor import TensorBase
from ..core.variable import Variable
from ..distribution.gradients import reduce_gradients
from ..dtypes import floatx
from ..core.naming import to_snake_case, unique_name
from ..layers.stateless_call import check_values
from ..ops.core import to_backend_tensor
from ..registry import serialize_keras_object
from . import schedules
from .arguments import check_base_arguments, check_learning_rate, pop_legacy_arguments
from .clipping import clip_gradients
from .gradient_checks import prepare_gradients, resolve_variables
from .moving_average import accumulate_gradients, update_moving_averages
from .optimizer_state import OptimizerState
from .schedules.learning_rate_schedule import LearningRateSchedule
from .weight_decay import WeightDecay
from ..core.saveable import register_saveable_base

_BASE_CONFIG = ("weight_decay", "clipnorm", "global_clipnorm", "clipvalue", "use_ema",
                "ema_momentum", "ema_overwrite_frequency", "loss_scale_factor",
                "gradient_accumulation_steps")


def _is_schedule_or_callable(value) -> bool:
    return isinstance(value, LearningRateSchedule) or (
        callable(value) and not isinstance(value, TensorBase))


class Optimizer(WeightDecay, OptimizerState):
    """Base class of optimizers. See the module docstring for the subclass contract.

    Args:
        learning_rate: a float, a ``LearningRateSchedule`` or a callable taking no
            arguments and returning the rate.
        weight_decay: a float; when set, each step first shrinks every variable by
            ``learning_rate * weight_decay`` times itself (decoupled weight decay).
        clipnorm: a float; clip each gradient so that its own L2 norm is at most this.
        clipvalue: a float; clip each gradient element into ``[-clipvalue, clipvalue]``.
        global_clipnorm: a float; clip all gradients together so that their joint L2
            norm is at most this (not with ``clipnorm``).
        use_ema: bool; keep an exponential moving average of the weights (default False).
        ema_momentum: float in [0, 1], the moving average's momentum (default 0.99).
        ema_overwrite_frequency: int or None; every this many steps, write the moving
            average into the variables (None: only at ``finalize_variable_values``).
        loss_scale_factor: a float or None; the loss is multiplied by it and the gradients
            divided by it (for mixed precision).
        gradient_accumulation_steps: int > 1 or None; apply the mean gradient once every
            this many calls to ``apply``.
        name: a string, or None for the snake_case class name made unique (``adam_1``).
        **kwargs: Keras 2's ``lr`` (an alias of ``learning_rate``, with a warning) and
            ``decay`` (ignored, with a warning); any other keyword raises ValueError.

    Example:

    >>> import lamina as keras
    >>> class PlainSGD(keras.optimizers.Optimizer):
    ...     def update_step(self, gradient, variable, learning_rate):
    ...         variable.assign(variable - learning_rate * gradient)
    >>> opt = PlainSGD(learning_rate=0.1)
    """
    saving_kind = "Optimizer"       # what lamina/saving asks (core/saveable.py)

    _keras_module = "keras.optimizers"

    def __init__(self, learning_rate, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        owner = type(self).__name__
        learning_rate = pop_legacy_arguments(owner, learning_rate, kwargs)
        options = check_base_arguments(
            owner, weight_decay=weight_decay, clipnorm=clipnorm, clipvalue=clipvalue,
            global_clipnorm=global_clipnorm, use_ema=use_ema, ema_momentum=ema_momentum,
            ema_overwrite_frequency=ema_overwrite_frequency,
            loss_scale_factor=loss_scale_factor,
            gradient_accumulation_steps=gradient_accumulation_steps)
        for key, value in options.items():
            setattr(self, key, value)
        if name is not None and not isinstance(name, str):
            raise TypeError(f"{owner}: argument 'name' must be a string; received {name!r}")
        # Keras's automatic name: the class name in snake_case, made unique with ``_N``
        # (``adam``, ``adam_1``, ``sgd``, ``adam_w``, ``rm_sprop``) until clear_session.
        self.name = name if name is not None else unique_name(to_snake_case(owner))
        self._init_state()
        self._update_gate = None              # set while gradient accumulation is running
        self.exclude_from_weight_decay()
        self._iterations = self._track(Variable(0, dtype="int64", trainable=False,
                                                name="iteration"))
        self._learning_rate = self._make_learning_rate(learning_rate)

    def _make_learning_rate(self, learning_rate):
        if _is_schedule_or_callable(learning_rate):
            return learning_rate
        value = check_learning_rate(type(self).__name__, learning_rate)
        return self._track(Variable(value, dtype=floatx(), trainable=False,
                                    name="learning_rate"))

    # ------------------------------------------------------------------ step counter, rate
    @property
    def iterations(self):
        """The number of optimizer steps taken (counting accumulated calls as one step)."""
        if self.gradient_accumulation_steps:
            return ops.floor_divide(self._iterations, self.gradient_accumulation_steps)
        return self._iterations

    @property
    def learning_rate(self):
        """The rate of the current step: the Variable, or the schedule's value (as ops)."""
        rate = self._learning_rate
        if isinstance(rate, LearningRateSchedule):
            return rate(self._iterations)
        if isinstance(rate, Variable):
            return rate
        return rate()

    @learning_rate.setter
    def learning_rate(self, value):
        previous = self._learning_rate
        if _is_schedule_or_callable(value):
            self._learning_rate = value
            if isinstance(previous, Variable):
                self._untrack(previous)
            return
        if not isinstance(previous, Variable):
            raise TypeError(f"{type(self).__name__}: the learning rate cannot be set to a "
                            f"number: this optimizer's learning_rate is a "
                            f"{type(previous).__name__} (a schedule or callable); received "
                            f"{value!r}. Create it with a float learning_rate to set it "
                            f"(This optimizer was created with a `LearningRateSchedule` "
                            f"object as its `learning_rate`: not settable)")
        previous.assign(check_learning_rate(type(self).__name__, value))

    lr = learning_rate     # Keras 2's name, still used by older callbacks and scripts

    def _learning_rate_tensor(self):
        rate = self.learning_rate
        if not isinstance(rate, TensorBase):
            rate = to_backend_tensor(rate, backend=self._iterations.backend)
        return rate

    # ------------------------------------------------------------------ the loop
    def update_step(self, gradient, variable, learning_rate) -> None:
        raise NotImplementedError(f"{type(self).__name__}: Optimizer subclasses must "
                                  f"implement update_step(gradient, variable, learning_rate)")

    def apply_gradients(self, grads_and_vars):
        """Apply ``[(gradient, variable), ...]``; returns ``iterations`` (as tf.keras)."""
        pairs = list(grads_and_vars)
        if any(not isinstance(p, (tuple, list)) or len(p) != 2 for p in pairs):
            raise TypeError(f"{type(self).__name__}.apply_gradients: argument "
                            f"'grads_and_vars' must be a list of (gradient, variable) "
                            f"pairs; received {pairs!r}")
        if pairs:
            self.apply([g for g, _ in pairs], [v for _, v in pairs])
        return self._iterations

    def apply(self, grads, trainable_variables=None) -> None:
        """Update ``trainable_variables`` (default: those the optimizer was built with)
        from ``grads``, one gradient per variable, in place."""
        grads = list(grads)
        if not grads:
            return
        variables = resolve_variables(self, grads, trainable_variables)
        with no_grad():
            grads, variables = prepare_gradients(type(self).__name__, grads, variables)
            grads, variables = _overwrite_with_gradients(self, grads, variables)
            if not grads:                        # only overwritten variables (float8 state)
                self._iterations.assign_add(1)
                return
            grads = reduce_gradients(grads)      # summed over DataParallel processes
            if self.loss_scale_factor is not None:
                grads = [ops.divide(g, self.loss_scale_factor) for g in grads]
            if self.gradient_accumulation_steps:
                accumulators = [self._accumulated_gradients[self._get_variable_index(v)]
                                for v in variables]
                self._update_gate, grads = accumulate_gradients(self, grads, accumulators)
            try:
                grads = self._clip_gradients(grads)
                learning_rate = self._learning_rate_tensor()
                self._apply_weight_decay(variables, learning_rate)
                self._backend_update_step(grads, variables, learning_rate)
            finally:
                self._update_gate, self._step_cache = None, {}
            if self.use_ema:
                update_moving_averages(self, self._trainable_variables,
                                       self._model_variables_moving_average)
            for variable in variables:
                if variable.constraint is not None:
                    variable.assign(variable.constraint(variable))
            self._iterations.assign_add(1)

    def _clip_gradients(self, grads) -> list:
        """``grads`` clipped by whichever of ``clipnorm``, ``global_clipnorm`` and
        ``clipvalue`` is set (Keras's name for this step; tests call it directly)."""
        return clip_gradients(grads, self.clipnorm, self.clipvalue, self.global_clipnorm)

    def stateless_apply(self, optimizer_variables, grads, trainable_variables):
        """``apply`` on given values, changing no Variable: returns the new
        ``(trainable_variables, optimizer_variables)`` values (Keras 3's JAX-style step)."""
        owner = type(self).__name__
        if not self.built:
            raise ValueError(f"{owner}.stateless_apply: the optimizer must be built (its "
                             f"variables created) first; call optimizer.build("
                             f"trainable_variables)")
        optimizer_variables, trainable_variables = (list(optimizer_variables),
                                                    list(trainable_variables))
        check_values(owner, "optimizer_variables", "variables", optimizer_variables,
                     self.variables)
        check_values(owner, "trainable_variables", "trainable_variables (that it was "
                     "built with)", trainable_variables, self._trainable_variables)
        mapping = (list(zip(self._trainable_variables, trainable_variables))
                   + list(zip(self.variables, optimizer_variables)))
        with StatelessScope(state_mapping=mapping) as scope:
            self.apply(grads)
        return ([scope.get_current_value(v) for v in self._trainable_variables],
                [scope.get_current_value(v) for v in self.variables])

    def _backend_update_step(self, grads, trainable_variables, learning_rate) -> None:
        for grad, variable in zip(grads, trainable_variables):
            self.update_step(grad, variable, learning_rate)

    # ------------------------------------------------------------------ config
    def get_config(self) -> dict:
        rate = self._learning_rate
        config = {"name": self.name,
                  "learning_rate": (float(rate.numpy()) if isinstance(rate, Variable)
                                    else serialize_keras_object(rate))}
        config.update({key: getattr(self, key) for key in _BASE_CONFIG})
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> "Optimizer":
        config = dict(config)
        for key in ("jit_compile", "is_legacy_optimizer"):    # tf.keras 2.11+ files
            config.pop(key, None)
        if isinstance(config.get("learning_rate"), dict):
            config["learning_rate"] = schedules.deserialize(config["learning_rate"],
                                                            custom_objects)
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name!r} built={self.built}>"


def _overwrite_with_gradients(optimizer, grads, variables) -> tuple[list, list]:
    """Keras 3's rule for variables with ``overwrite_with_gradient`` (float8 layers' scales
    and amax histories, whose custom gradients are their new values): they take their
    gradient as it is -- no loss scaling, clipping, decay or update step -- and leave the
    lists; with gradient accumulation, the largest value over the accumulated steps is
    written on the update step. Returns the other gradients and variables."""
    kept_grads, kept_variables = [], []
    steps = optimizer.gradient_accumulation_steps
    for grad, variable in zip(grads, variables):
        if not getattr(variable, "overwrite_with_gradient", False):
            kept_grads.append(grad)
            kept_variables.append(variable)
        elif steps:
            is_update_step = ops.equal(ops.mod(ops.add(optimizer._iterations, 1), steps), 0)
            accumulator = optimizer._accumulated_gradients[
                optimizer._get_variable_index(variable)]
            largest = ops.maximum(grad, accumulator)
            variable.assign(ops.where(is_update_step, largest, variable))
            accumulator.assign(ops.where(is_update_step, ops.zeros_like(grad), largest))
        else:
            variable.assign(grad)
    return kept_grads, kept_variables


# saving/object_graph.py leaves out the attributes every plain Optimizer has (Keras's rule)
register_saveable_base("Optimizer", Optimizer, lambda: Optimizer(1.0))
