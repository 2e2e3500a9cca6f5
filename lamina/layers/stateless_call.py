"""``Layer.stateless_call``: run a layer on given weight values inside a StatelessScope
(Keras 3's functional, JAX-style call)."""
from __future__ import annotations

from ..core.stateless_scope import StatelessScope


def check_values(owner: str, argument: str, attribute: str, values, variables) -> None:
    if len(values) != len(variables):
        raise ValueError(f"{owner}: argument '{argument}' must be a list of tensors "
                         f"corresponding 1:1 to {owner}().{attribute}; received a list of "
                         f"length {len(values)}, expected {len(variables)}")


def stateless_call(layer, trainable_values, non_trainable_values, args, kwargs,
                   return_losses: bool):
    owner = type(layer).__name__
    if not layer.built:
        raise ValueError(f"{owner}.stateless_call: the layer must be built (its variables "
                         f"created) first; build it by calling it on some data")
    trainable, non_trainable = layer.trainable_variables, layer.non_trainable_variables
    trainable_values, non_trainable_values = list(trainable_values), list(non_trainable_values)
    check_values(owner, "trainable_variables", "trainable_variables", trainable_values,
                 trainable)
    check_values(owner, "non_trainable_variables", "non_trainable_variables",
                 non_trainable_values, non_trainable)
    mapping = list(zip(trainable, trainable_values)) + list(zip(non_trainable,
                                                                non_trainable_values))
    losses = None
    with StatelessScope(state_mapping=mapping, collect_losses=return_losses) as scope:
        outputs = layer(*args, **kwargs)        # __call__: training flows to sublayers
        if return_losses:
            losses = layer.losses
    new_values = [scope.get_current_value(v) for v in non_trainable]
    if return_losses:
        return outputs, new_values, losses
    return outputs, new_values
