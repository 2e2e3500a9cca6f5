"""``Activation``: applies an activation function to its input."""
from __future__ import annotations

from ... import activations
from ..layer import Layer


class Activation(Layer):
    """Applies ``activation`` (a name such as "relu", or a callable) elementwise
    (Keras 3's ``Activation``). Masks pass through unchanged.

    Args:
        activation: The activation: a name such as 'relu' or 'softmax', or a callable.
    """

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        try:
            self.activation = activations.get(activation)
        except (TypeError, ValueError) as exc:     # same type, message names the layer
            raise type(exc)(f"{self.name}: argument 'activation': {exc}") from None
        self.supports_masking = True
        self._build_at_init()

    def call(self, inputs):
        return self.activation(inputs)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(),
                "activation": activations.serialize(self.activation)}
