"""``GRUCell`` and ``GRU`` (Cho et al. 2014), with Keras's gate order z, r, h."""
from __future__ import annotations

from ... import activations, ops
from .base_cell import RNNCellBase
from .cell_rnn import CellRNN, check_use_cudnn
from .fused_sequence import gru_sequence


class GRUCell(RNNCellBase):
    """One GRU step (Keras's ``GRUCell``); one state ``h``, equal to the output::

        z = sigmoid(x W_z + b_z + h U_z (+ b'_z))      r likewise
        reset_after=True:  hh = tanh(x W_h + b_h + r * (h U_h + b'_h))
        reset_after=False: hh = tanh(x W_h + b_h + (r * h) U_h)
        h' = z * h + (1 - z) * hh

    Weights: ``kernel`` (input_dim, 3*units), ``recurrent_kernel`` (units, 3*units),
    ``bias`` (2, 3*units) (input and recurrent biases) with ``reset_after``, else
    (3*units,).

    Args:
        units: Size of the output and of the hidden state.
        activation: Activation of the output and candidate state (default tanh); None is linear.
        recurrent_activation: Activation of the gates (default sigmoid).
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
        reset_after: Whether the reset gate applies after the recurrent matrix product (Keras
            3's and cuDNN's convention, bias of shape ``(2, 3 * units)``) or before it.
        seed: Integer seed of the dropout masks; None draws a random seed.
    """

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
                 kernel_constraint=None, recurrent_constraint=None, bias_constraint=None,
                 dropout=0.0, recurrent_dropout=0.0, reset_after=True, seed=None, **kwargs):
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
        self.reset_after = bool(reset_after)
        self.state_size = self.units
        # With recurrent dropout Keras draws one mask per gate (its "implementation 1").
        self.dropout_mask_count = 3 if self.recurrent_dropout else None

    def build(self, input_shape):
        bias_shape = (2, 3 * self.units) if self.reset_after else (3 * self.units,)
        self._add_weights(input_shape, 3, bias_shape, self.bias_initializer)

    def call(self, inputs, states=None, training=None):
        inputs, states = self._unpack(inputs, states)
        h_tm1 = states[0]
        input_mask, recurrent_mask = self._masks(inputs, h_tm1, training)
        input_bias = recurrent_bias = None
        if self.bias is not None:
            input_bias, recurrent_bias = ops.unstack(self.bias, axis=0) if self.reset_after \
                else (self.bias, None)
        x = self._projection(inputs, self.kernel, input_mask)
        if input_bias is not None:
            x = ops.add(x, input_bias)
        x_z, x_r, x_h = ops.split(x, 3, axis=-1)

        if self.reset_after:
            inner = self._projection(h_tm1, self.recurrent_kernel, recurrent_mask)
            if recurrent_bias is not None:
                inner = ops.add(inner, recurrent_bias)
            h_z, h_r, h_h = ops.split(inner, 3, axis=-1)
        else:
            kernel_zr, kernel_h = ops.split(self.recurrent_kernel, [2 * self.units], axis=-1)
            zr_mask, h_mask = (recurrent_mask[:2], recurrent_mask[2]) \
                if isinstance(recurrent_mask, list) else (recurrent_mask, recurrent_mask)
            h_z, h_r = ops.split(self._projection(h_tm1, kernel_zr, zr_mask), 2, axis=-1)

        z = self.recurrent_activation(ops.add(x_z, h_z))
        r = self.recurrent_activation(ops.add(x_r, h_r))
        if self.reset_after:
            recurrent_h = ops.multiply(r, h_h)
        else:
            h_in = h_tm1 if h_mask is None else ops.multiply(h_tm1, h_mask)
            recurrent_h = ops.matmul(ops.multiply(r, h_in), kernel_h)
        hh = self.activation(ops.add(x_h, recurrent_h))
        h = ops.add(ops.multiply(z, h_tm1), ops.multiply(ops.subtract(1.0, z), hh))
        return h, [h]

    def get_config(self) -> dict:
        return {**super().get_config(),
                "recurrent_activation": activations.serialize(self.recurrent_activation),
                "reset_after": self.reset_after}


class GRU(CellRNN):
    """Gated recurrent unit over ``(batch, timesteps, features)`` (Keras's ``GRU``).

    Weights (in the ``gru_cell`` sublayer): ``kernel`` (features, 3*units),
    ``recurrent_kernel`` (units, 3*units), ``bias`` (2, 3*units) with ``reset_after``
    (Keras 3's default), else (3*units,). ``use_cudnn=True`` warns once: no cuDNN kernels.

    Args:
        units: Size of the output and of the hidden state.
        activation: Activation of the output and candidate state (default tanh); None is linear.
        recurrent_activation: Activation of the gates (default sigmoid).
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
        seed: Integer seed of the layer's random draws; None draws a random seed.
        return_sequences: Whether to return the output of every step ``(batch, timesteps, ...)``
            instead of the last one.
        return_state: Whether to return the final states after the output, as a list.
        go_backwards: Whether to read the sequence backwards and return the reversed sequence.
        stateful: Whether each batch starts from the final states of the previous one (sample i
            continues sample i) until ``reset_state()``.
        unroll: Whether to unroll the time loop into one step per timestep (same numbers; needs
            a known number of timesteps).
        reset_after: Whether the reset gate applies after the recurrent matrix product (Keras
            3's and cuDNN's convention, bias of shape ``(2, 3 * units)``) or before it.
        use_cudnn: 'auto', True or False. Lamina has no cuDNN kernels: True warns once and the
            layer runs its ordinary kernels.

    Example:

    >>> lamina.layers.GRU(4)(np.zeros((2, 7, 5))).shape
    (2, 4)
    """

    cell_class = GRUCell
    cell_name = "gru_cell"

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, seed=None,
                 return_sequences=False, return_state=False, go_backwards=False,
                 stateful=False, unroll=False, reset_after=True, use_cudnn="auto", **kwargs):
        cell_arguments = dict(
            units=units, activation=activation, recurrent_activation=recurrent_activation,
            use_bias=use_bias, kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer, recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint, bias_constraint=bias_constraint,
            dropout=dropout, recurrent_dropout=recurrent_dropout, reset_after=reset_after,
            seed=seed)
        rnn_arguments = dict(return_sequences=return_sequences, return_state=return_state,
                             go_backwards=go_backwards, stateful=stateful, unroll=unroll)
        super().__init__(cell_arguments, rnn_arguments,
                         activity_regularizer=activity_regularizer, **kwargs)
        self.use_cudnn = check_use_cudnn(self.name, use_cudnn, type(self).__name__)

    def _fused_sequence(self, sequences, states, mask, training):
        return gru_sequence(self, GRUCell, sequences, states, mask, training)

    def get_config(self) -> dict:
        return {**super().get_config(), "use_cudnn": self.use_cudnn}
