"""AdamW (Loshchilov & Hutter, https://arxiv.org/abs/1711.05101): Adam plus decoupled
weight decay, ``w -= w * weight_decay * lr`` before each update (done by the base class,
which any optimizer shares; AdamW only makes it the default)."""
from __future__ import annotations

from ..registry import register_builtin
from .adam import Adam


@register_builtin
class AdamW(Adam):
    """Adam with ``weight_decay=0.004`` by default; the weight decay is required.

    Args:
        learning_rate: a float, a ``LearningRateSchedule`` or a callable taking no
            arguments and returning the rate (default 0.001).
        weight_decay: a float, the decoupled weight decay (default 0.004).
        beta_1: float in [0, 1), decay rate of the first-moment estimate (default 0.9).
        beta_2: float in [0, 1), decay rate of the second-moment estimate (default 0.999).
        epsilon: a small float added to the denominator for stability (default 1e-7).
        amsgrad: bool; use the running maximum of the second moment (AMSGrad).
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
    >>> opt = keras.optimizers.AdamW(learning_rate=0.1)
    >>> w = keras.Variable([1.0, 2.0])
    >>> opt.apply([keras.ops.convert_to_tensor([0.5, -0.5])], [w])
    """

    def __init__(self, learning_rate=0.001, weight_decay=0.004, beta_1=0.9, beta_2=0.999,
                 epsilon=1e-7, amsgrad=False, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        if weight_decay is None:
            raise ValueError("AdamW: Argument `weight_decay` must be a float. Received: "
                             "weight_decay=None")
        super().__init__(learning_rate=learning_rate, beta_1=beta_1, beta_2=beta_2,
                         epsilon=epsilon, amsgrad=amsgrad, weight_decay=weight_decay,
                         clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor,
                         gradient_accumulation_steps=gradient_accumulation_steps, name=name,
                         **kwargs)
