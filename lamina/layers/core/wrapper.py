"""``Wrapper``: the base of layers that wrap another layer (Keras 3's ``Wrapper``)."""
from __future__ import annotations

from .. import call_context
from ..layer import Layer
from ..recurrent.sublayer_config import deserialize_sublayer, serialize_sublayer


class Wrapper(Layer):
    """Holds ``layer`` and builds it on the wrapper's input shape; its config nests the
    wrapped layer's serialized config under ``"layer"``. Subclasses write ``call`` (the
    base class has none, as in Keras: it is not meant to be used as a layer itself).

    Args:
        layer: The layer to wrap.
    """

    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError(f"{type(self).__name__}: argument 'layer' must be a Layer "
                             f"instance; received {layer!r} (Keras: Layer {layer!r} supplied "
                             f"to Wrapper isn't a supported layer type. Please ensure wrapped "
                             f"layer is a valid Keras layer.)")
        super().__init__(**kwargs)
        self.layer = layer

    def build(self, input_shape=None):
        if not self.layer.built:
            with call_context.name_scope(self.layer.name):    # paths "wrapper/layer/kernel"
                self.layer.build(input_shape)
            self.layer.built = True

    def get_config(self) -> dict:
        return {**super().get_config(), "layer": serialize_sublayer(self.layer)}

    @classmethod
    def from_config(cls, config: dict, custom_objects=None):
        config = dict(config)
        layer = deserialize_sublayer(config.pop("layer"), custom_objects)
        return cls(layer, **config)
