"""The states an RNN call starts from: given ones (checked), kept ones (stateful) or
zeros; and the variables a stateful RNN keeps them in."""
from __future__ import annotations

from ... import ops, tree
from ...core.tensor import TensorBase
from ...core.variable import Variable
from ...errors import describe_shape


def state_variables(layer, batch_size: int):
    """Non-trainable variables holding ``layer``'s states between calls. They are not
    among the layer's weights (Keras keeps them out of ``get_weights`` too)."""
    return tree.map_structure(lambda value: Variable(value, trainable=False, name="rnn_state"),
                              layer.get_initial_state(batch_size))


def initial_states(layer, sequences, initial_state) -> list:
    """The states ``layer`` starts this call from, structured like its ``state_size``."""
    if initial_state is None:
        if layer.stateful and layer.states is not None:
            batch, kept = sequences.shape[0], tree.flatten(layer.states)[0].shape[0]
            if batch is not None and batch != kept:
                raise ValueError(f"{layer.name}: a stateful RNN keeps states for batches "
                                 f"of {kept}; received input shape "
                                 f"{describe_shape(sequences.shape)}")
            # Copies: the variables are overwritten after the call, while the tape still
            # needs the values this call read.
            return tree.map_structure(lambda v: v.value, layer.states)
        return _zero_states(layer, sequences)
    flat = tree.flatten(initial_state)
    sizes = tree.flatten(layer.state_size)
    if len(flat) != len(sizes):
        raise ValueError(f"{layer.name}: argument 'initial_state' must hold {len(sizes)} "
                         f"tensor(s), one per state of the cell (sizes {sizes}); "
                         f"received {len(flat)}")
    flat = [ops.cast(s if isinstance(s, TensorBase) else ops.convert_to_tensor(s),
                     layer.compute_dtype) for s in flat]
    for state, size in zip(flat, sizes):
        if isinstance(size, int) and state.shape[-1] not in (None, size):
            raise ValueError(f"{layer.name}: argument 'initial_state' must hold states of "
                             f"shape (batch, {size}); received shape "
                             f"{describe_shape(state.shape)}")
    return tree.pack_sequence_as(layer.state_size, flat)


def _zero_states(layer, sequences) -> list:
    if sequences.shape[0] is not None:
        return layer.get_initial_state(sequences.shape[0])
    # A symbolic batch of unknown size: the states of a batch of one give the structure
    # and sizes; the zeros are shaped (and fed) from the inputs.
    step = sequences[:, 0]
    zeros = ops.zeros_like(ops.sum(step, axis=tuple(range(1, step.ndim))))

    def like(state):
        column = zeros
        for _ in range(state.ndim - 1):
            column = ops.expand_dims(column, -1)
        return ops.tile(column, (1, *state.shape[1:]))
    return tree.map_structure(like, layer.get_initial_state(1))
