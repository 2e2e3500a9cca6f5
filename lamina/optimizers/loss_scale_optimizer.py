"""``LossScaleOptimizer``: dynamic loss scaling for float16 training (Keras 3's).

float16 gradients underflow to zero below about 6e-8. The train step multiplies the loss by
``dynamic_scale`` (``scale_loss``), so every gradient is that much larger, and ``apply``
divides them again before the wrapped optimizer uses them. The scale adapts:

* a step whose gradients are all finite is applied; after ``dynamic_growth_steps`` such
  steps in a row the scale doubles;
* a step with an inf or NaN gradient changes no weight and no state of the wrapped
  optimizer (its iteration count included); the scale halves and the count restarts.

No Python branch on tensor values: the wrapped optimizer always runs, and every variable it
could write then takes ``where(finite, new value, value before the step)``, so eager mode
and compiled steps compute the same thing.
"""
from __future__ import annotations

from .. import ops
from ..initializers import Constant
from ..autograd.tape import no_grad
from ..registry import deserialize_keras_object, register_builtin, serialize_keras_object
from .optimizer import Optimizer

_BASE_DEFAULTS = {"weight_decay": None, "clipnorm": None, "global_clipnorm": None,
                  "clipvalue": None, "use_ema": False, "ema_momentum": 0.99,
                  "ema_overwrite_frequency": None, "loss_scale_factor": None,
                  "gradient_accumulation_steps": None}


@register_builtin
class LossScaleOptimizer(Optimizer):
    """An optimizer that scales the loss, to keep float16 gradients from underflowing.

    It wraps ``inner_optimizer`` with a dynamic loss scale: the loss is multiplied by the
    scale before the gradients are taken and the gradients divided by it before the inner
    optimizer applies them. A step whose gradients are not finite is skipped and halves the
    scale; after ``dynamic_growth_steps`` finite steps in a row the scale doubles.
    ``model.compile`` wraps the optimizer in one under a ``"mixed_float16"`` policy.

    Args:
        inner_optimizer: The ``Optimizer`` that applies the unscaled gradients.
        initial_scale: The first loss scale. Defaults to ``2**15``.
        dynamic_growth_steps: The number of finite steps in a row after which the scale
            doubles; a positive int. Defaults to 2000.
        name: The optimizer's name; ``None`` gives a default one.
        **kwargs: Keras's older ``dynamic=True`` and the base optimizer arguments at their
            defaults (as old configs write them) are accepted; ``dynamic=False`` or any
            other value raises ``ValueError`` (set those arguments on ``inner_optimizer``).

    Raises:
        TypeError: If ``inner_optimizer`` is not an ``Optimizer``.
        ValueError: If ``dynamic_growth_steps`` is not a positive int, or an argument above
            is not supported.

    Example:

    >>> optimizer = LossScaleOptimizer(lamina.optimizers.Adam(1e-3))
    >>> model.compile(optimizer=optimizer, loss="mse")
    """

    def __init__(self, inner_optimizer, initial_scale=2.0**15, dynamic_growth_steps=2000,
                 name=None, **kwargs):
        if not kwargs.pop("dynamic", True):
            raise ValueError("LossScaleOptimizer: argument 'dynamic=False' is no longer "
                             "supported; for a fixed scale, set `loss_scale_factor` on the "
                             "`inner_optimizer`")
        for key, default in _BASE_DEFAULTS.items():     # old configs wrote the defaults
            if key in kwargs and kwargs.pop(key) != default:
                raise ValueError(f"LossScaleOptimizer: argument `{key}` is not supported; "
                                 f"set `{key}` on the `inner_optimizer`")
        if kwargs:
            raise ValueError("LossScaleOptimizer: unsupported arguments: `"
                             + "`, `".join(kwargs) + "`")
        if not isinstance(inner_optimizer, Optimizer):
            raise TypeError(f"LossScaleOptimizer: argument 'inner_optimizer' must be an "
                            f"Optimizer; received {inner_optimizer!r}")
        if isinstance(dynamic_growth_steps, bool) or not isinstance(dynamic_growth_steps, int) \
                or dynamic_growth_steps < 1:
            raise ValueError(f"LossScaleOptimizer: argument 'dynamic_growth_steps' must be a "
                             f"positive int; received {dynamic_growth_steps!r}")
        super().__init__(learning_rate=0.0, name=name)
        self.inner_optimizer = inner_optimizer
        self.initial_scale = initial_scale
        self.dynamic_growth_steps = dynamic_growth_steps
        inner_optimizer.loss_scale_factor = None        # scaled here, never twice

    def build(self, var_list) -> None:
        self.step_counter = self.add_variable((), initializer="zeros", dtype="int32",
                                              aggregation="none", name="step_counter")
        self.dynamic_scale = self.add_variable((), initializer=Constant(float(self.initial_scale)),
                                               dtype="float32", aggregation="none",
                                               name="dynamic_scale")
        self.inner_optimizer.build(var_list)
        super().build(var_list)

    @property
    def variables(self) -> list:
        return list(self._variables) + self.inner_optimizer.variables

    def check_finite(self, grads):
        """A bool scalar: every given gradient is free of inf and NaN."""
        flags = [ops.all(ops.isfinite(g)) for g in grads if g is not None]
        return ops.all(ops.stack(flags)) if flags else ops.convert_to_tensor(True)

    def apply(self, grads, trainable_variables=None) -> None:
        grads = list(grads)
        if not self.built:
            if trainable_variables is None:
                raise ValueError("LossScaleOptimizer.apply: when 'trainable_variables' is not "
                                 "given the optimizer must already be built; call "
                                 "optimizer.build(trainable_variables) first")
            self.build(list(trainable_variables))
        variables = list(trainable_variables if trainable_variables is not None
                         else self._trainable_variables)
        with no_grad():
            finite = self.check_finite(grads)
            state = [v for v in self.inner_optimizer.variables] + variables
            before = [v.value for v in state]
            scale = self.dynamic_scale.value
            # a skipped step's gradients become zeros: its updates are thrown away, and
            # inf - inf in the wrapped optimizer's math would only raise warnings
            # (float8 state with overwrite_with_gradient gets its new value, unscaled)
            unscaled = [None if g is None else
                        g if getattr(v, "overwrite_with_gradient", False) else
                        ops.where(finite, ops.divide(g, ops.cast(scale, g.dtype)), 0.0)
                        for g, v in zip(grads, variables)]
            self.inner_optimizer.apply(unscaled, trainable_variables)
            for variable, old in zip(state, before):
                variable.assign(ops.where(finite, variable, old))
            grow = ops.logical_and(
                finite, ops.equal(self.step_counter, self.dynamic_growth_steps - 1))
            factor = ops.where(grow, 2.0, ops.where(finite, 1.0, 0.5))
            self.dynamic_scale.assign(ops.multiply(scale, ops.cast(factor, "float32")))
            counter = ops.add(self.step_counter, 1)
            self.step_counter.assign(ops.where(ops.logical_or(grow, ops.logical_not(finite)),
                                               ops.zeros_like(counter), counter))

    def scale_loss(self, loss):
        """``loss`` times the current scale (``initial_scale`` before the first build)."""
        scale = self.dynamic_scale if self.built else self.initial_scale
        if ops.is_tensor(loss) and "float" in str(loss.dtype):
            scale = ops.cast(scale, loss.dtype)     # a float16 loss stays float16
        return ops.multiply(loss, scale)

    @property
    def learning_rate(self):
        return self.inner_optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, value) -> None:
        self.inner_optimizer.learning_rate = value

    @property
    def iterations(self):
        return self.inner_optimizer.iterations

    def finalize_variable_values(self, var_list) -> None:
        self.inner_optimizer.finalize_variable_values(var_list)

    def get_config(self) -> dict:
        return {"name": self.name,
                "inner_optimizer": serialize_keras_object(self.inner_optimizer),
                "initial_scale": self.initial_scale,
                "dynamic_growth_steps": self.dynamic_growth_steps}

    @classmethod
    def from_config(cls, config: dict, custom_objects=None) -> "LossScaleOptimizer":
        config = dict(config)
        inner = deserialize_keras_object(config.pop("inner_optimizer"), custom_objects,
                                         kind="optimizer")
        return cls(inner, **config)
