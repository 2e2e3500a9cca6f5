"""Keras 3's ``keras.mixed_precision`` (its legacy names for the dtype-policy API).

``set_global_policy("mixed_float16")`` or ``"mixed_bfloat16"`` makes new layers keep float32
variables and compute in 16 bits; ``LossScaleOptimizer`` keeps float16 gradients from
underflowing (``compile`` adds it by itself for a ``mixed_float16`` model).
"""
from ..dtype_policies import DTypePolicy
from ..dtype_policies.dtype_policy import dtype_policy, set_dtype_policy
from ..optimizers.loss_scale_optimizer import LossScaleOptimizer

Policy = DTypePolicy
global_policy = dtype_policy
set_global_policy = set_dtype_policy

__all__ = ["DTypePolicy", "Policy", "LossScaleOptimizer", "dtype_policy", "global_policy",
           "set_dtype_policy", "set_global_policy"]
