"""``SimpleRNNCell`` and ``SimpleRNN``: ``h_t = activation(x_t @ W + b + h_{t-1} @ U)``."""
from __future__ import annotations

from ... import ops
from .base_cell import RNNCellBase
from .cell_rnn import CellRNN


class SimpleRNNCell(RNNCellBase):
    """One step of a fully connected RNN (Keras's ``SimpleRNNCell``).

    Weights: ``kernel`` (input_dim, units), ``recurrent_kernel`` (units, units),
    ``bias`` (units,). One state, equal to the output.

    Args:
        units: Size of the output and of the hidden state.
        activation: Activation of the output and candidate state (default tanh); None is linear.
        use_bias: Whether the layer adds a bias vector to its output.
        kernel_initializer: Initializer of the input ``kernel``.
        recurrent_initializer: Initializer of the ``recurrent_kernel`` (default orthogonal).
        bias_initializer: Initializer of the ``bias`` weight.
        kernel_regularizer: Regularizer applied to the ``kernel`` (added to ``layer.losses``),
            or None.
        recurrent_regularizer: Regularizer of the ``recurrent_kernel``, or None.
        bias_regularizer: Regularizer applied to the ``bias``, or None.
        kernel_constraint: Constraint applied to the ``kernel`` after each optimizer update, or
            None.
        recurrent_constraint: Constraint of the ``recurrent_kernel``, or None.
        bias_constraint: Constraint applied to the ``bias`` after each optimizer update, or
            None.
        dropout: Fraction of the input units dropped in training, a float in [0, 1).
        recurrent_dropout: Fraction of the recurrent state's units dropped in training, in [0,
            1).
        seed: Integer seed of the dropout masks; None draws a random seed.
    """

    def __init__(self, units, activation="tanh", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, seed=None,
                 **kwargs):
        super().__init__(units, activation=activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer,
                         recurrent_initializer=recurrent_initializer,
                         bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer,
                         recurrent_regularizer=recurrent_regularizer,
                         bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
                         recurrent_constraint=recurrent_constraint,
                         bias_constraint=bias_constraint, dropout=dropout,
                         recurrent_dropout=recurrent_dropout, seed=seed, **kwargs)
        self.state_size = self.units

    def build(self, input_shape):
        self._add_weights(input_shape, 1, (self.units,), self.bias_initializer)

    def call(self, inputs, states=None, training=None):
        inputs, states = self._unpack(inputs, states)
        h_tm1 = states[0]
        input_mask, recurrent_mask = self._masks(inputs, h_tm1, training)
        h = self._projection(inputs, self.kernel, input_mask)
        if self.bias is not None:
            h = ops.add(h, self.bias)
        output = self.activation(
            ops.add(h, self._projection(h_tm1, self.recurrent_kernel, recurrent_mask)))
        return output, [output]


class SimpleRNN(CellRNN):
    """A fully connected RNN over ``(batch, timesteps, features)`` (Keras's ``SimpleRNN``).

    Weights (in the ``simple_rnn_cell`` sublayer): ``kernel`` (features, units),
    ``recurrent_kernel`` (units, units), ``bias`` (units,).

    Args:
        units: Size of the output and of the hidden state.
        activation: Activation of the output and candidate state (default tanh); None is linear.
        use_bias: Whether the layer adds a bias vector to its output.
        kernel_initializer: Initializer of the input ``kernel``.
        recurrent_initializer: Initializer of the ``recurrent_kernel`` (default orthogonal).
        bias_initializer: Initializer of the ``bias`` weight.
        kernel_regularizer: Regularizer applied to the ``kernel`` (added to ``layer.losses``),
            or None.
        recurrent_regularizer: Regularizer of the ``recurrent_kernel``, or None.
        bias_regularizer: Regularizer applied to the ``bias``, or None.
        activity_regularizer: Regularizer applied to the layer's output (added to
            ``layer.losses``), or None.
        kernel_constraint: Constraint applied to the ``kernel`` after each optimizer update, or
            None.
        recurrent_constraint: Constraint of the ``recurrent_kernel``, or None.
        bias_constraint: Constraint applied to the ``bias`` after each optimizer update, or
            None.
        dropout: Fraction of the input units dropped in training, a float in [0, 1).
        recurrent_dropout: Fraction of the recurrent state's units dropped in training, in [0,
            1).
        return_sequences: Whether to return the output of every step ``(batch, timesteps, ...)``
            instead of the last one.
        return_state: Whether to return the final states after the output, as a list.
        go_backwards: Whether to read the sequence backwards and return the reversed sequence.
        stateful: Whether each batch starts from the final states of the previous one (sample i
            continues sample i) until ``reset_state()``.
        unroll: Whether to unroll the time loop into one step per timestep (same numbers; needs
            a known number of timesteps).
        seed: Integer seed of the layer's random draws; None draws a random seed.
    """

    cell_class = SimpleRNNCell
    cell_name = "simple_rnn_cell"

    def __init__(self, units, activation="tanh", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, return_sequences=False, return_state=False,
                 go_backwards=False, stateful=False, unroll=False, seed=None, **kwargs):
        cell_arguments = dict(
            units=units, activation=activation, use_bias=use_bias,
            kernel_initializer=kernel_initializer, recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer, bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint, recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint, dropout=dropout,
            recurrent_dropout=recurrent_dropout, seed=seed)
        rnn_arguments = dict(return_sequences=return_sequences, return_state=return_state,
                             go_backwards=go_backwards, stateful=stateful, unroll=unroll)
        super().__init__(cell_arguments, rnn_arguments,
                         activity_regularizer=activity_regularizer, **kwargs)
