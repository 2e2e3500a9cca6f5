"""``LSTMCell`` and ``LSTM`` (Hochreiter & Schmidhuber 1997), with Keras's gate order
i, f, c, o in the columns of every weight."""
from __future__ import annotations

from ... import activations, ops
from .base_cell import RNNCellBase
from .cell_rnn import CellRNN, check_use_cudnn
from .fused_sequence import lstm_sequence


class LSTMCell(RNNCellBase):
    """One LSTM step (Keras's ``LSTMCell``); states ``[h, c]``, output ``h``::

        z = x @ kernel + h @ recurrent_kernel + bias        # columns i | f | c | o
        c' = sigmoid(z_f) * c + sigmoid(z_i) * tanh(z_c)
        h' = sigmoid(z_o) * tanh(c')

    (``activation`` replaces tanh, ``recurrent_activation`` sigmoid). Weights: ``kernel``
    (input_dim, 4*units), ``recurrent_kernel`` (units, 4*units), ``bias`` (4*units,), whose
    forget block starts at 1 with ``unit_forget_bias``.

    Args:
        units: Size of the output and of the hidden state.
        activation: Activation of the output and candidate state (default tanh); None is linear.
        recurrent_activation: Activation of the gates (default sigmoid).
        use_bias: Whether the layer adds a bias vector to its output.
        kernel_initializer: Initializer of the input ``kernel``.
        recurrent_initializer: Initializer of the ``recurrent_kernel`` (default orthogonal).
        bias_initializer: Initializer of the ``bias`` weight.
        unit_forget_bias: Whether to add 1 to the forget gate's bias at initialization (the
            other biases then start at zero, whatever ``bias_initializer`` says).
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

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None,
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
        self.recurrent_activation = activations.get(recurrent_activation)
        self.unit_forget_bias = bool(unit_forget_bias)
        self.state_size = [self.units, self.units]
        # With recurrent dropout Keras draws one mask per gate (its "implementation 1").
        self.dropout_mask_count = 4 if self.recurrent_dropout else None

    def build(self, input_shape):
        bias_initializer = self.bias_initializer
        if self.unit_forget_bias:
            def bias_initializer(shape, dtype=None):
                units = self.units
                return ops.concatenate([self.bias_initializer((units,), dtype=dtype),
                                        ops.ones((units,), dtype=dtype),
                                        self.bias_initializer((2 * units,), dtype=dtype)])
        self._add_weights(input_shape, 4, (4 * self.units,), bias_initializer)

    def call(self, inputs, states=None, training=None):
        inputs, states = self._unpack(inputs, states)
        h_tm1, c_tm1 = states[0], states[1]
        input_mask, recurrent_mask = self._masks(inputs, h_tm1, training)
        z = ops.add(self._projection(inputs, self.kernel, input_mask),
                    self._projection(h_tm1, self.recurrent_kernel, recurrent_mask))
        if self.bias is not None:
            z = ops.add(z, self.bias)
        z_i, z_f, z_c, z_o = ops.split(z, 4, axis=-1)
        i = self.recurrent_activation(z_i)
        f = self.recurrent_activation(z_f)
        c = ops.add(ops.multiply(f, c_tm1), ops.multiply(i, self.activation(z_c)))
        o = self.recurrent_activation(z_o)
        h = ops.multiply(o, self.activation(c))
        return h, [h, c]

    def get_config(self) -> dict:
        return {**super().get_config(),
                "recurrent_activation": activations.serialize(self.recurrent_activation),
                "unit_forget_bias": self.unit_forget_bias}


class LSTM(CellRNN):
    """Long short-term memory over ``(batch, timesteps, features)`` (Keras's ``LSTM``).

    Weights (in the ``lstm_cell`` sublayer): ``kernel`` (features, 4*units),
    ``recurrent_kernel`` (units, 4*units), ``bias`` (4*units,). ``return_state`` returns
    ``[output, h, c]``. ``use_cudnn=True`` warns once: Lamina has no cuDNN kernels.

    Args:
        units: Size of the output and of the hidden state.
        activation: Activation of the output and candidate state (default tanh); None is linear.
        recurrent_activation: Activation of the gates (default sigmoid).
        use_bias: Whether the layer adds a bias vector to its output.
        kernel_initializer: Initializer of the input ``kernel``.
        recurrent_initializer: Initializer of the ``recurrent_kernel`` (default orthogonal).
        bias_initializer: Initializer of the ``bias`` weight.
        unit_forget_bias: Whether to add 1 to the forget gate's bias at initialization (the
            other biases then start at zero, whatever ``bias_initializer`` says).
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
        seed: Integer seed of the layer's random draws; None draws a random seed.
        return_sequences: Whether to return the output of every step ``(batch, timesteps, ...)``
            instead of the last one.
        return_state: Whether to return the final states after the output, as a list.
        go_backwards: Whether to read the sequence backwards and return the reversed sequence.
        stateful: Whether each batch starts from the final states of the previous one (sample i
            continues sample i) until ``reset_state()``.
        unroll: Whether to unroll the time loop into one step per timestep (same numbers; needs
            a known number of timesteps).
        use_cudnn: 'auto', True or False. Lamina has no cuDNN kernels: True warns once and the
            layer runs its ordinary kernels.

    Example:

    >>> x = np.zeros((2, 7, 5))
    >>> lamina.layers.LSTM(4)(x).shape
    (2, 4)
    >>> lamina.layers.LSTM(4, return_sequences=True)(x).shape
    (2, 7, 4)
    """

    cell_class = LSTMCell
    cell_name = "lstm_cell"

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, return_sequences=False, return_state=False,
                 go_backwards=False, stateful=False, unroll=False, use_cudnn="auto", **kwargs):
        cell_arguments = dict(
            units=units, activation=activation, recurrent_activation=recurrent_activation,
            use_bias=use_bias, kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
            unit_forget_bias=unit_forget_bias, kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer, bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint, recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint, dropout=dropout,
            recurrent_dropout=recurrent_dropout, seed=seed)
        rnn_arguments = dict(return_sequences=return_sequences, return_state=return_state,
                             go_backwards=go_backwards, stateful=stateful, unroll=unroll)
        super().__init__(cell_arguments, rnn_arguments,
                         activity_regularizer=activity_regularizer, **kwargs)
        self.use_cudnn = check_use_cudnn(self.name, use_cudnn, type(self).__name__)

    def _fused_sequence(self, sequences, states, mask, training):
        return lstm_sequence(self, LSTMCell, sequences, states, mask, training)

    def get_config(self) -> dict:
        return {**super().get_config(), "use_cudnn": self.use_cudnn}
