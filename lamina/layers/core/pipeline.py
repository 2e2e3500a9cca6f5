"""``Pipeline``: layers applied one after the other, as one layer (Keras 3's ``Pipeline``,
meant for preprocessing and augmentation chains)."""
from __future__ import annotations

import inspect

from ...registry import deserialize_keras_object, serialize_keras_object
from ..layer import Layer


def _accepts(layer, argument: str) -> bool:
    return argument in inspect.signature(layer.call).parameters


class Pipeline(Layer):
    """Calls ``layers`` in order, passing each the ``mask`` (the previous output's mask)
    and ``training`` where its ``call`` takes them. As in Keras, ``training`` defaults to
    True in a direct call (augmentations apply) and is inherited inside a model
    (``predict`` runs with False). Unlike ``Sequential`` it is not a model: no ``fit``,
    and its config is only ``{"layers": [...], "name": ...}``.

    Args:
        layers: The layers, called in order.
        name: Name of the layer; None derives a unique one from the class name.
    """

    def __init__(self, layers, name=None):
        super().__init__(name=name)
        if not isinstance(layers, (list, tuple)) or not all(
                isinstance(layer, Layer) for layer in layers):
            raise ValueError(f"{self.name}: argument 'layers' must be a list of Layer "
                             f"instances; received {layers!r}")
        self._pipeline_layers = list(layers)

    @property
    def layers(self) -> list:
        return self._pipeline_layers

    def call(self, inputs, training=True, mask=None):
        outputs = inputs
        for layer in self._pipeline_layers:
            kwargs = {}
            if _accepts(layer, "mask"):
                kwargs["mask"] = mask
            if _accepts(layer, "training") and training is not None:
                kwargs["training"] = training
            outputs = layer(inputs, **kwargs)
            mask = getattr(outputs, "_keras_mask", None)
            inputs = outputs
        return outputs

    def compute_output_shape(self, input_shape):
        for layer in self._pipeline_layers:
            input_shape = layer.compute_output_shape(input_shape)
        return input_shape

    def get_config(self) -> dict:
        return {"layers": [serialize_keras_object(layer) for layer in self._pipeline_layers],
                "name": self.name}

    @classmethod
    def from_config(cls, config: dict, custom_objects=None):
        layers = config.get("layers")
        if not isinstance(layers, (list, tuple)):
            raise ValueError(f"Pipeline: the config must map 'layers' to a list of "
                             f"serialized layers; received layers={layers!r}")
        config = {**config, "layers": [deserialize_keras_object(layer, custom_objects)
                                       for layer in layers]}
        return cls(**config)
