"""``Bidirectional``: one RNN reads the sequence forwards, a copy reads it backwards."""
from __future__ import annotations

from ... import ops, tree
from .. import call_context
from ..call_protocol import call_parameters
from ..layer import Layer
from .sublayer_config import deserialize_sublayer, serialize_sublayer

MERGE_MODES = ("concat", "sum", "mul", "ave", None)


class Bidirectional(Layer):
    """Runs ``layer`` (an RNN) forwards and a copy of it backwards, then merges the two
    outputs with ``merge_mode`` ('concat', 'sum', 'mul', 'ave', or None for a list).

    The sublayers are new layers made from ``layer``'s config, named ``forward_<name>`` and
    ``backward_<name>`` (the latter with ``go_backwards=True``, or ``backward_layer``);
    weights are the forward layer's, then the backward layer's. The backward sequence
    output is flipped back to forward time before merging, and masked steps give zeros
    (Keras forces ``zero_output_for_mask`` when returning sequences). With
    ``return_state`` the output is followed by the forward states, then the backward ones;
    an ``initial_state`` list gives its first half to the forward layer.

    Args:
        layer: The recurrent layer (e.g. ``LSTM``) run forwards; a copy runs backwards.
        merge_mode: How the two outputs combine: 'concat', 'sum', 'mul', 'ave', or None (a list
            of both).
        weights: Initial weights: the forward layer's, then the backward layer's.
        backward_layer: The recurrent layer to run backwards; None: a copy of ``layer`` with
            ``go_backwards=True``.
    """

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None,
                 **kwargs):
        super().__init__(**kwargs)
        if not isinstance(layer, Layer):
            raise ValueError(f"{self.name}: argument 'layer' must be a Layer instance (an RNN "
                             f"such as LSTM(8)); received {layer!r}")
        if backward_layer is not None and not isinstance(backward_layer, Layer):
            raise ValueError(f"{self.name}: argument 'backward_layer' must be a Layer "
                             f"instance or None; received {backward_layer!r}")
        if merge_mode not in MERGE_MODES:
            raise ValueError(f"{self.name}: argument 'merge_mode' must be one of "
                             f"{list(MERGE_MODES)}; received {merge_mode!r}")
        self.forward_layer = _copy(layer, "forward_")
        self.backward_layer = backward_layer if backward_layer is not None else \
            _copy(layer, "backward_", go_backwards=True)
        self._check_pair()
        for sub in (self.forward_layer, self.backward_layer):
            if hasattr(sub, "zero_output_for_mask"):
                sub.zero_output_for_mask = sub.return_sequences
        self.merge_mode = merge_mode
        self._initial_weights = list(weights) if weights is not None else None
        self.stateful = layer.stateful
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state
        self.supports_masking = True
        self.input_spec = layer.input_spec

    def _check_pair(self) -> None:
        forward, backward = self.forward_layer, self.backward_layer
        if forward.go_backwards == backward.go_backwards:
            raise ValueError(f"{self.name}: the forward and backward layers must differ in "
                             f"'go_backwards'; received {forward.go_backwards} for both")
        for attribute in ("stateful", "return_sequences", "return_state"):
            if getattr(forward, attribute) != getattr(backward, attribute):
                raise ValueError(
                    f"{self.name}: the forward and backward layers must have the same "
                    f"'{attribute}'; received {getattr(forward, attribute)} (forward) and "
                    f"{getattr(backward, attribute)} (backward)")

    def build(self, sequences_shape, initial_state_shape=None):
        for sub in (self.forward_layer, self.backward_layer):
            if not sub.built:
                with call_context.name_scope(sub.name):
                    sub.build(sequences_shape)
                sub._build_shapes = tuple(sequences_shape)
                sub.built = True
        if self._initial_weights is not None:
            half = len(self._initial_weights) // 2
            self.forward_layer.set_weights(self._initial_weights[:half])
            self.backward_layer.set_weights(self._initial_weights[half:])
            self._initial_weights = None
        self.built = True

    def call(self, sequences, initial_state=None, mask=None, training=None):
        forward_state = backward_state = None
        if initial_state is not None:
            states = tree.flatten(initial_state)
            forward_state, backward_state = states[:len(states) // 2], states[len(states) // 2:]
        y = self._run(self.forward_layer, sequences, forward_state, mask, training)
        y_rev = self._run(self.backward_layer, sequences, backward_state, mask, training)
        states = ()
        if self.return_state:
            states = tuple(y[1:]) + tuple(y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        if self.return_sequences:
            y_rev = ops.flip(y_rev, axis=1)          # back to forward time
        if self.merge_mode == "concat":
            output = (ops.concatenate([y, y_rev], axis=-1),)
        elif self.merge_mode == "sum":
            output = (ops.add(y, y_rev),)
        elif self.merge_mode == "ave":
            output = (ops.multiply(ops.add(y, y_rev), 0.5),)
        elif self.merge_mode == "mul":
            output = (ops.multiply(y, y_rev),)
        else:
            output = (y, y_rev)
        if self.return_state or self.merge_mode is None:
            return output + states
        return output[0]

    @staticmethod
    def _run(layer, sequences, initial_state, mask, training):
        params = call_parameters(layer)
        kwargs = {"training": training}
        if "mask" in params:
            kwargs["mask"] = mask
        if initial_state is not None:
            kwargs["initial_state"] = initial_state
        return layer(sequences, **kwargs)

    @property
    def states(self):
        forward = getattr(self.forward_layer, "states", None)
        backward = getattr(self.backward_layer, "states", None)
        return tuple(forward) + tuple(backward) if forward and backward else None

    def reset_state(self) -> None:
        if not self.stateful:
            raise ValueError(f"{self.name}.reset_state: the layer is not stateful "
                             f"(its RNN was made with stateful=False)")
        self.forward_layer.reset_state()
        self.backward_layer.reset_state()

    reset_states = reset_state

    def compute_mask(self, inputs, mask=None):
        mask = tree.flatten(mask)[0] if mask is not None else None
        output_mask = mask if self.return_sequences else None
        masks = [output_mask] if self.merge_mode else [output_mask, output_mask]
        if self.return_state:
            count = len(tree.flatten(getattr(self.forward_layer, "state_size", [])))
            masks += [None] * (2 * count)
        return masks if len(masks) > 1 else masks[0]

    def get_config(self) -> dict:
        return {**super().get_config(), "merge_mode": self.merge_mode,
                "layer": serialize_sublayer(self.forward_layer),
                "backward_layer": serialize_sublayer(self.backward_layer)}

    @classmethod
    def from_config(cls, config: dict, custom_objects=None):
        config = dict(config)
        for key in ("layer", "backward_layer"):
            if config.get(key) is not None:
                config[key] = deserialize_sublayer(config[key], custom_objects)
        return cls(**config)


def _copy(layer: Layer, prefix: str, **changes) -> Layer:
    """A fresh, unbuilt layer from ``layer``'s config, renamed ``<prefix><name>``."""
    config = layer.get_config()
    name = layer.name[len(prefix):] if layer.name.startswith(prefix) else layer.name
    config.update(changes, name=prefix + name)
    return type(layer).from_config(config)
