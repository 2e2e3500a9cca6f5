"""AdamW (Loshchilov & Hutter, https://arxiv.org/abs/1711.05101): Adam plus decoupled
weight decay, ``w -= w * weight_decay * lr`` before each update (done by the base class,
which any optimizer shares; AdamW only makes it the default)."""
from __future__ import annotations

from ..registry import register_builtin
from .adam import Adam


@register_builtin
class AdamW(Adam):
    """Adam with ``weight_decay=0.004`` by default; the weight decay is required."""

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
