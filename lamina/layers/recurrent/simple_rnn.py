"""``SimpleRNNCell`` and ``SimpleRNN``: ``h_t = activation(x_t @ W + b + h_{t-1} @ U)``."""
from __future__ import annotations

from ... import ops
from .base_cell import RNNCellBase
from .cell_rnn import CellRNN


class SimpleRNNCell(RNNCellBase):
    """One step of a fully connected RNN (Keras's ``SimpleRNNCell``).

    Weights: ``kernel`` (input_dim, units), ``recurrent_kernel`` (units, units),
    ``bias`` (units,). One state, equal to the output.
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
