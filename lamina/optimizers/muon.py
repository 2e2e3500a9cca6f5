"""Muon (Jordan et al., https://kellerjordan.github.io/posts/muon/), as Keras 3 writes it.

A 2-D variable (not an embedding, not matched by ``exclude_layers``) takes the Muon step:
``m = momentum * m + g``, the direction ``g + momentum * m`` (Nesterov) or ``m``,
orthogonalised by ``ns_steps`` Newton-Schulz iterations, scaled by ``sqrt(max(rows,
cols)) * rms_rate`` (Moonlight's adjustment; none when ``rms_rate`` is None):
``w -= lr * update``. Every other variable takes AdamW's step at ``lr * adam_lr_ratio``.
Weight decay is ``weight_decay`` for Muon variables and ``adam_weight_decay`` for the rest.
"""
from __future__ import annotations

import numbers
import re

from .. import ops
from ..registry import register_builtin
from .arguments import check_number, check_range
from .optimizer import Optimizer


def _swap_last_axes(x):
    order = list(range(len(x.shape)))
    order[-2], order[-1] = order[-1], order[-2]
    return ops.transpose(x, order)


def newton_schulz(x, steps: int, a: float, b: float, c: float):
    """The quintic Newton-Schulz iteration that maps ``x`` towards ``U V^T`` of its SVD."""
    if len(x.shape) < 2:
        raise ValueError(f"Muon: the Newton-Schulz iteration needs a gradient or momentum "
                         f"with at least 2 dimensions; received shape {tuple(x.shape)}")
    tall = x.shape[-2] > x.shape[-1]
    if tall:
        x = _swap_last_axes(x)
    norm = ops.sqrt(ops.sum(ops.square(x), axis=(-2, -1), keepdims=True))
    x = ops.divide(x, ops.add(norm, 1e-7))
    for _ in range(steps):
        gram = ops.matmul(x, _swap_last_axes(x))
        poly = ops.add(ops.multiply(gram, b), ops.multiply(ops.matmul(gram, gram), c))
        x = ops.add(ops.multiply(x, a), ops.matmul(poly, x))
    return _swap_last_axes(x) if tall else x


@register_builtin
class Muon(Optimizer):
    """Muon; per variable ``<var>_momentum``, then ``<var>_velocity`` for AdamW's.

    Args:
        learning_rate: a float, a ``LearningRateSchedule`` or a callable taking no
            arguments and returning the rate (default 0.001).
        adam_beta_1: float, AdamW's first-moment decay for non-Muon variables
            (default 0.9).
        adam_beta_2: float, AdamW's second-moment decay (default 0.999).
        adam_weight_decay: float, AdamW's decoupled weight decay (default 0.004).
        epsilon: a small float added to the denominator for stability (default 1e-7).
        exclude_layers: a list of regular expressions; variables whose path matches one
            take the AdamW step (default None).
        exclude_embeddings: bool; embedding tables take the AdamW step (default True).
        muon_a: float, first Newton-Schulz coefficient (default 3.4445).
        muon_b: float, second Newton-Schulz coefficient (default -4.775).
        muon_c: float, third Newton-Schulz coefficient (default 2.0315).
        adam_lr_ratio: float, the AdamW step's rate as a fraction of ``learning_rate``
            (default 1).
        momentum: float, the Muon momentum (default 0.95).
        ns_steps: int, Newton-Schulz iterations that orthogonalize the update (default 5).
        nesterov: bool; use Nesterov momentum for the Muon step (default True).
        rms_rate: float or None, scales the update's RMS to match AdamW's (default 0.2;
            None: no scaling).
        weight_decay: a float, the Muon variables' weight decay (default 0.004); each
            step first shrinks every such variable by
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
    """

    def __init__(self, learning_rate=0.001, adam_beta_1=0.9, adam_beta_2=0.999,
                 adam_weight_decay=0.004, epsilon=1e-7, weight_decay=0.004, clipnorm=None,
                 clipvalue=None, global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, exclude_layers=None,
                 exclude_embeddings=True, muon_a=3.4445, muon_b=-4.775, muon_c=2.0315,
                 adam_lr_ratio=1, momentum=0.95, ns_steps=5, nesterov=True, rms_rate=0.2,
                 **kwargs):
        super().__init__(learning_rate=learning_rate, weight_decay=weight_decay,
                         clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor,
                         gradient_accumulation_steps=gradient_accumulation_steps, name=name,
                         **kwargs)
        owner = "Muon"
        self.adam_beta_1 = check_range(owner, "adam_beta_1", adam_beta_1, 0.0, 1.0,
                                       high_inclusive=False)
        self.adam_beta_2 = check_range(owner, "adam_beta_2", adam_beta_2, 0.0, 1.0,
                                       high_inclusive=False)
        self.adam_weight_decay = (None if adam_weight_decay is None else check_number(
            owner, "adam_weight_decay", adam_weight_decay, non_negative=True))
        self.epsilon = check_number(owner, "epsilon", epsilon, non_negative=True)
        self.muon_a = check_number(owner, "muon_a", muon_a)
        self.muon_b = check_number(owner, "muon_b", muon_b)
        self.muon_c = check_number(owner, "muon_c", muon_c)
        self.adam_lr_ratio = check_number(owner, "adam_lr_ratio", adam_lr_ratio,
                                          non_negative=True)
        self.momentum = check_range(owner, "momentum", momentum, 0.0, 1.0)
        if isinstance(ns_steps, bool) or not isinstance(ns_steps, numbers.Integral) \
                or ns_steps < 0:
            raise ValueError(f"{owner}: argument 'ns_steps' must be an integer >= 0; "
                             f"received {ns_steps!r}")
        self.ns_steps = int(ns_steps)
        self.nesterov = bool(nesterov)
        self.exclude_embeddings = bool(exclude_embeddings)
        if isinstance(exclude_layers, str) or not isinstance(exclude_layers or [],
                                                             (list, tuple)):
            raise TypeError(f"{owner}: argument 'exclude_layers' must be a list of regular "
                            f"expressions or None; received {exclude_layers!r}")
        self.exclude_layers = list(exclude_layers or [])
        self.rms_rate = (None if rms_rate is None else
                         check_number(owner, "rms_rate", rms_rate, non_negative=True))

    def _should_use_adamw(self, variable) -> bool:
        if len(variable.shape) != 2:
            return True
        path = str(getattr(variable, "path", None) or variable.name)
        if self.exclude_embeddings and "embedding" in path.lower():
            return True
        return any(re.search(pattern, path) for pattern in self.exclude_layers)

    def build(self, var_list) -> None:
        if self.built:
            return
        super().build(var_list)
        self.momentums, self.adam_velocities = [], []
        for variable in var_list:
            self.momentums.append(self.add_variable_from_reference(variable, "momentum"))
            self.adam_velocities.append(
                self.add_variable_from_reference(variable, "velocity")
                if self._should_use_adamw(variable) else None)

    def _apply_weight_decay(self, variables, learning_rate=None) -> None:
        if learning_rate is None:
            learning_rate = self._learning_rate_tensor()
        for variable in variables:
            if not self._use_weight_decay(variable):
                continue
            decay = (self.adam_weight_decay if self._should_use_adamw(variable)
                     else self.weight_decay)
            if decay is None:
                continue
            lr = ops.cast(learning_rate, variable.dtype)
            self.assign(variable, ops.subtract(
                variable, ops.multiply(ops.multiply(variable, decay), lr)))

    def update_step(self, gradient, variable, learning_rate) -> None:
        index = self._get_variable_index(variable)
        m, v = self.momentums[index], self.adam_velocities[index]
        lr = ops.cast(learning_rate, variable.dtype)
        if v is not None:
            self._adamw_step(gradient, variable, ops.multiply(lr, self.adam_lr_ratio), m, v)
            return
        self.assign(m, ops.add(ops.multiply(m, self.momentum), gradient))
        direction = (ops.add(gradient, ops.multiply(m, self.momentum)) if self.nesterov
                     else m)
        update = self.zeropower_via_newtonschulz5(direction, self.ns_steps)
        self.assign_sub(variable, self.lr_adjust(ops.multiply(update, lr)))

    def zeropower_via_newtonschulz5(self, x, steps: int):
        """``x`` orthogonalised by ``steps`` Newton-Schulz iterations (Keras's name)."""
        return newton_schulz(ops.convert_to_tensor(x), steps, self.muon_a, self.muon_b,
                             self.muon_c)

    def lr_adjust(self, x):
        """Moonlight's scaling of a 2-D update ``x``: ``x * sqrt(max(rows, cols)) *
        rms_rate`` (https://arxiv.org/abs/2502.16982); ``x`` unchanged without rms_rate."""
        if self.rms_rate is None:
            return x
        return ops.multiply(x, float(max(x.shape[0], x.shape[1])) ** 0.5 * self.rms_rate)

    def _adamw_step(self, gradient, variable, lr, m, v) -> None:
        local_step = ops.cast(ops.add(self.iterations, 1), variable.dtype)
        alpha = ops.divide(
            ops.multiply(lr, ops.sqrt(ops.subtract(1.0, ops.power(self.adam_beta_2,
                                                                  local_step)))),
            ops.subtract(1.0, ops.power(self.adam_beta_1, local_step)))
        self.assign_add(m, ops.multiply(ops.subtract(gradient, m), 1.0 - self.adam_beta_1))
        self.assign_add(v, ops.multiply(ops.subtract(ops.square(gradient), v),
                                        1.0 - self.adam_beta_2))
        self.assign_sub(variable, ops.divide(ops.multiply(m, alpha),
                                             ops.add(ops.sqrt(v), self.epsilon)))

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({"adam_beta_1": self.adam_beta_1, "adam_beta_2": self.adam_beta_2,
                       "epsilon": self.epsilon, "exclude_layers": self.exclude_layers,
                       "muon_a": self.muon_a, "muon_b": self.muon_b, "muon_c": self.muon_c,
                       "adam_lr_ratio": self.adam_lr_ratio, "momentum": self.momentum,
                       "ns_steps": self.ns_steps, "nesterov": self.nesterov,
                       "exclude_embeddings": self.exclude_embeddings,
                       "adam_weight_decay": self.adam_weight_decay,
                       "rms_rate": self.rms_rate})
        return config
