"""``TimeDistributed``: one layer applied to every timestep of a sequence."""
from __future__ import annotations

from ... import ops, tree
from ...core.tensor import TensorBase
from ...core.symbolic import SymbolicTensor
from ...errors import ShapeError, describe_shape
from ...graph import trace as graph_trace
from .. import call_context
from ..call_protocol import call_parameters
from ..input_spec import InputSpec
from ..layer import Layer
from .rnn_loop import over_time
from .sublayer_config import deserialize_sublayer, serialize_sublayer


class TimeDistributed(Layer):
    """Applies ``layer`` to each ``inputs[:, t]`` of ``(batch, timesteps, ...)`` inputs,
    with the same weights at every step (they are ``layer``'s weights).

    The batch and time axes are merged into one, so ``layer`` runs once on
    ``(batch * timesteps, ...)`` and the result is split back into
    ``(batch, timesteps, ...)``. A ``(batch, timesteps)`` mask reaches ``layer`` merged the
    same way (when its ``call`` takes one) and passes through unchanged.

    Args:
        layer: The layer applied to every timestep.
    """

    def __init__(self, layer, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(layer, Layer):
            raise ValueError(f"{self.name}: argument 'layer' must be a Layer instance (e.g. "
                             f"Dense(8)); received {layer!r}")
        self.layer = layer
        self.supports_masking = True
        self.input_spec = InputSpec.described("(batch, timesteps, ...)", min_ndim=3)

    def build(self, input_shape):
        step_shape = (None, *tuple(input_shape)[2:])
        if not self.layer.built:
            with call_context.name_scope(self.layer.name):
                self.layer.build(step_shape)
            self.layer._build_shapes = step_shape
            self.layer.built = True
        self.built = True

    def call(self, inputs, training=None, mask=None):
        batch, steps, rest = inputs.shape[0], inputs.shape[1], tuple(inputs.shape[2:])
        kwargs = {"training": training}
        mask = tree.flatten(mask)[0] if mask is not None else None
        if mask is not None and (len(mask.shape) < 2 or any(
                m is not None and s is not None and m != s
                for m, s in zip(mask.shape[:2], (batch, steps)))):
            raise ValueError(f"{self.name}: argument 'mask' must have shape (batch, "
                             f"timesteps, ...) = {describe_shape((batch, steps))}; "
                             f"received shape {describe_shape(mask.shape)} (The `mask` "
                             f"passed to the `TimeDistributed` layer has a shape that is "
                             f"incompatible with the input shape)")
        if isinstance(inputs, SymbolicTensor) and None in inputs.shape[1:]:
            if graph_trace.active() is not None:
                raise ShapeError(f"{self.name}: a compiled graph needs the sizes after the "
                                 f"batch axis; received shape {describe_shape(inputs.shape)}")
            # Functional-API building with unknown sizes that a reshape cannot carry: one
            # step gives the per-step output shape, spread over the time axis.
            return over_time(inputs, self._single(self.layer(inputs[:, 0], **kwargs)))
        if mask is not None and "mask" in call_parameters(self.layer):
            kwargs["mask"] = ops.reshape(mask, (-1, *mask.shape[2:]))
        y = self._single(self.layer(ops.reshape(inputs, (-1, *rest)), **kwargs))
        # -1: an unknown batch size (a batch-polymorphic graph) is taken at run time
        return ops.reshape(y, (-1 if batch is None else batch, steps, *y.shape[1:]))

    def _single(self, y):
        if not isinstance(y, TensorBase):
            raise ValueError(f"{self.name}: the wrapped layer {self.layer.name} must return "
                             f"one tensor; it returned {type(y).__name__}")
        return y

    def get_config(self) -> dict:
        return {**super().get_config(), "layer": serialize_sublayer(self.layer)}

    @classmethod
    def from_config(cls, config: dict, custom_objects=None):
        config = dict(config)
        return cls(deserialize_sublayer(config.pop("layer"), custom_objects), **config)
