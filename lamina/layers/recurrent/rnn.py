"""``RNN``: runs a cell over the time axis (Keras 3's generic recurrent layer)."""
from __future__ import annotations

import inspect

from ... import ops, tree
from ...core.tensor import TensorBase
from ...errors import describe_shape
from ...graph.trace import runs_for_real
from .. import call_context
from ..input_spec import InputSpec
from ..layer import Layer
from .rnn_loop import run_rnn, symbolic_rnn
from .rnn_states import initial_states, state_variables
from .stacked_rnn_cells import StackedRNNCells, cell_output_size
from .sublayer_config import deserialize_sublayer, serialize_sublayer


class RNN(Layer):
    """A recurrent layer made of ``cell`` (or a list of cells, stacked).

    A cell has ``call(inputs, states[, training])`` returning ``(output, new_states)`` and a
    ``state_size`` (an int or a list of ints). Inputs are ``(batch, timesteps, ...)``;
    the output is the last output ``(batch, units)``, the whole sequence with
    ``return_sequences``, followed by the final states with ``return_state``.
    ``call(sequences, initial_state=None, mask=None, training=None)``: where ``mask`` is
    False the states carry over and the previous output repeats (zeros with
    ``zero_output_for_mask``). ``go_backwards`` reads time in reverse and returns the
    sequence in that reversed order. ``stateful`` keeps the final states (in
    non-trainable variables, not among the weights, as Keras) as the next call's initial
    states until :meth:`reset_state`. ``unroll=True`` traces one copy of the step per
    timestep into a compiled graph (Keras's unrolled loop) instead of one ``scan`` node;
    the numbers are the same.

    Args:
        cell: A cell (``call(inputs, states)`` and ``state_size``) or a list of cells, stacked.
        return_sequences: Whether to return the output of every step ``(batch, timesteps, ...)``
            instead of the last one.
        return_state: Whether to return the final states after the output, as a list.
        go_backwards: Whether to read the sequence backwards and return the reversed sequence.
        stateful: Whether each batch starts from the final states of the previous one (sample i
            continues sample i) until ``reset_state()``.
        unroll: Whether to unroll the time loop into one step per timestep (same numbers; needs
            a known number of timesteps).
        zero_output_for_mask: Whether masked steps output zeros instead of repeating the
            previous output.
    """

    def __init__(self, cell, return_sequences=False, return_state=False, go_backwards=False,
                 stateful=False, unroll=False, zero_output_for_mask=False, **kwargs):
        super().__init__(**kwargs)
        self._init_rnn(cell, return_sequences, return_state, go_backwards, stateful, unroll,
                       zero_output_for_mask)

    def _init_rnn(self, cell, return_sequences, return_state, go_backwards, stateful, unroll,
                  zero_output_for_mask) -> None:
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(list(cell))
        if not callable(getattr(cell, "call", None)):
            raise ValueError(f"{self.name}: argument 'cell' must have a call(inputs, states) "
                             f"method; received {cell!r}")
        state_size = getattr(cell, "state_size", None)
        if not isinstance(state_size, (int, list, tuple)) or isinstance(state_size, bool):
            raise ValueError(f"{self.name}: argument 'cell' must have a 'state_size' "
                             f"attribute (an int, or a list of ints, one per state); "
                             f"received a cell with state_size={state_size!r}")
        self.cell = cell
        self.return_sequences = bool(return_sequences)
        self.return_state = bool(return_state)
        self.go_backwards = bool(go_backwards)
        self.stateful = bool(stateful)
        self.unroll = bool(unroll)
        self.zero_output_for_mask = bool(zero_output_for_mask)
        self.supports_masking = True
        self.input_spec = InputSpec.described("(batch, timesteps, features)", min_ndim=3)
        self.states = None

    @property
    def state_size(self) -> list:
        size = self.cell.state_size
        return [size] if isinstance(size, int) else list(size)

    # ---------------------------------------------------------------- build and states
    def build(self, sequences_shape, initial_state_shape=None):
        step_shape = (sequences_shape[0], *tuple(sequences_shape)[2:])
        if isinstance(self.cell, Layer) and not self.cell.built:
            with call_context.name_scope(self.cell.name):
                self.cell.build(step_shape)
            self.cell.built = True
        spec = self.input_spec
        if isinstance(spec, InputSpec) and sequences_shape[-1] is not None:
            self.input_spec = InputSpec.described(spec.layout,
                                                  ndim=spec.ndim, min_ndim=spec.min_ndim,
                                                  axes={-1: sequences_shape[-1]})
        if self.stateful and self.states is None:
            batch_size = sequences_shape[0]
            if batch_size is None:
                raise ValueError(
                    f"{self.name}: a stateful RNN needs a fixed batch size; give the model "
                    f"Input a batch size (Input(batch_shape=(32, ...)) or "
                    f"Input(shape, batch_size=32)); received input shape "
                    f"{describe_shape(sequences_shape)}")
            # kept out of the weights (Keras holds them as tensors, not tracked state)
            self.__dict__["states"] = state_variables(self, batch_size)
        self.built = True

    def get_initial_state(self, batch_size):
        """The cell's initial states (zeros unless the cell says otherwise), as a list."""
        make = getattr(self.cell, "get_initial_state", None)
        if make is None:
            return [ops.zeros((batch_size, d), dtype=self.compute_dtype)
                    for d in self.state_size]
        states = make(batch_size=batch_size)
        return list(states) if tree.is_nested(states) else [states]

    def reset_state(self, states=None) -> None:
        """Zero the kept states of a stateful layer (or set them to ``states``)."""
        if self.states is None:
            return
        variables = tree.flatten(self.states)
        values = [None] * len(variables) if states is None else tree.flatten(states)
        if len(values) != len(variables):
            raise ValueError(f"{self.name}.reset_state: argument 'states' must hold "
                             f"{len(variables)} arrays; received {len(values)}")
        for variable, value in zip(variables, values):
            variable.assign(ops.zeros(variable.shape, variable.dtype) if value is None
                            else value)

    reset_states = reset_state

    # ---------------------------------------------------------------- call
    def call(self, sequences, initial_state=None, mask=None, training=None):
        timesteps = sequences.shape[1]
        if timesteps == 0:
            raise ValueError(f"{self.name}: the input must have at least one timestep; "
                             f"received shape {describe_shape(sequences.shape)}")
        if timesteps is None and self.unroll:
            raise ValueError(f"{self.name}: cannot unroll an RNN over an unknown number of "
                             f"timesteps; give the Input a time dimension "
                             f"(e.g. Input(shape=(10, 8))) or use unroll=False")
        states = initial_states(self, sequences, initial_state)
        mask = self._check_mask(sequences, mask)
        step = self._step_function(training)
        _reset_dropout_masks(self.cell)
        try:
            fused = self._fused_sequence(sequences, states, mask, training)
            if fused is not None:
                last, sequence, states = fused
            elif timesteps is None:
                last, sequence, states = symbolic_rnn(step, sequences, states,
                                                      self.return_sequences)
            else:
                last, sequence, states = run_rnn(
                    step, sequences, states, mask=mask, go_backwards=self.go_backwards,
                    zero_output_for_mask=self.zero_output_for_mask,
                    return_all_outputs=self.return_sequences, unroll=self.unroll)
        finally:
            _reset_dropout_masks(self.cell)
        if self.stateful and self.states is not None and runs_for_real(sequences):
            for variable, value in zip(tree.flatten(self.states), tree.flatten(states)):
                variable.assign(value)
        output = sequence if self.return_sequences else last
        if self.return_state:
            return (output, *states)
        return output

    def _fused_sequence(self, sequences, states, mask, training):
        """``(last, sequence, states)`` computed by one whole-sequence op instead of the
        step loop, or None (the step loop runs): LSTM and GRU override it
        (fused_sequence.py)."""
        return None

    def _check_mask(self, sequences, mask):
        mask = tree.flatten(mask)[0] if mask is not None else None
        if mask is None:
            return None
        if not isinstance(mask, TensorBase):
            mask = ops.convert_to_tensor(mask)
        if len(mask.shape) != 2 or any(m is not None and s is not None and m != s
                                       for m, s in zip(mask.shape, sequences.shape[:2])):
            raise ValueError(f"{self.name}: argument 'mask' must have shape (batch, timesteps) "
                             f"= {describe_shape(sequences.shape[:2])}; received shape "
                             f"{describe_shape(mask.shape)}")
        return mask if mask.dtype == "bool" else ops.cast(mask, "bool")

    def _step_function(self, training):
        cell = self.cell
        call = cell.call if isinstance(cell, Layer) else cell
        kwargs = {}
        if "training" in inspect.signature(call).parameters:
            kwargs["training"] = training

        def step(inputs, states):
            return call(inputs, states, **kwargs)
        return step

    # ---------------------------------------------------------------- shapes, masks, config
    def compute_output_shape(self, sequences_shape, initial_state_shape=None):
        batch, length = sequences_shape[0], sequences_shape[1]
        units = cell_output_size(self.cell)
        output = (batch, length, units) if self.return_sequences else (batch, units)
        if not self.return_state:
            return output
        return (output, *tree.map_structure(lambda size: (batch, size), self.state_size))

    def compute_mask(self, inputs, mask=None):
        mask = tree.flatten(mask)[0] if mask is not None else None
        output_mask = mask if self.return_sequences else None
        if self.return_state:
            return [output_mask] + [None] * len(tree.flatten(self.state_size))
        return output_mask

    def get_config(self) -> dict:
        return {**super().get_config(), "return_sequences": self.return_sequences,
                "return_state": self.return_state, "go_backwards": self.go_backwards,
                "stateful": self.stateful, "unroll": self.unroll,
                "zero_output_for_mask": self.zero_output_for_mask,
                "cell": serialize_sublayer(self.cell)}

    @classmethod
    def from_config(cls, config: dict, custom_objects=None):
        config = dict(config)
        cell = deserialize_sublayer(config.pop("cell"), custom_objects)
        return cls(cell, **config)


def _reset_dropout_masks(cell) -> None:
    """Forget the cell's dropout masks: they are drawn once per sequence."""
    for sub in getattr(cell, "cells", [cell]):
        if hasattr(sub, "reset_dropout_mask"):
            sub.reset_dropout_mask()
            sub.reset_recurrent_dropout_mask()
