"""``ConvLSTM1D``, ``ConvLSTM2D``, ``ConvLSTM3D``: an LSTM whose products are
convolutions, over sequences of sequences, images or volumes."""
from __future__ import annotations

from ...errors import describe_shape
from ..convolutional import conv_utils as cu
from ..input_spec import InputSpec
from ..layer import Layer
from .base_cell import check_rate
from .cell_rnn import CellRNN
from .conv_lstm_cell import ConvLSTMCell


class ConvLSTM(CellRNN):
    """The shared layer (Keras's ``ConvLSTM``); subclasses fix ``rank``.

    Inputs are ``(batch, time, *spatial, channels)`` (``(batch, time, channels, *spatial)``
    with ``channels_first``). Weights (in the ``conv_lstm_cell`` sublayer): ``kernel``
    (*kernel_size, channels, 4*filters), ``recurrent_kernel`` (*kernel_size, filters,
    4*filters), ``bias`` (4*filters,). ``return_state`` returns ``[output, h, c]``.
    """

    rank = 2
    cell_class = ConvLSTMCell
    cell_name = "conv_lstm_cell"

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, activation="tanh", recurrent_activation="sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, return_sequences=False, return_state=False,
                 go_backwards=False, stateful=False, **kwargs):
        unroll = bool(kwargs.pop("unroll", False))
        zero_output_for_mask = bool(kwargs.pop("zero_output_for_mask", False))
        Layer.__init__(self, activity_regularizer=activity_regularizer, **kwargs)
        check_rate(self.name, "dropout", dropout)
        check_rate(self.name, "recurrent_dropout", recurrent_dropout)
        cell = ConvLSTMCell(
            self.rank, filters, kernel_size, strides=strides, padding=padding,
            data_format=data_format, dilation_rate=dilation_rate, activation=activation,
            recurrent_activation=recurrent_activation, use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
            unit_forget_bias=unit_forget_bias, kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer, bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint, recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint, dropout=dropout,
            recurrent_dropout=recurrent_dropout, seed=seed, name=self.cell_name,
            dtype=kwargs.get("dtype"), trainable=kwargs.get("trainable", True))
        self._init_rnn(cell, return_sequences, return_state, go_backwards, stateful, unroll,
                       zero_output_for_mask)
        self.input_spec = InputSpec(ndim=self.rank + 3)

    def build(self, sequences_shape, initial_state_shape=None):
        sequences_shape = tuple(sequences_shape)
        if len(sequences_shape) != self.rank + 3:
            raise ValueError(f"{self.name}: expected inputs of rank {self.rank + 3} (batch, "
                             f"time, {self.rank} spatial axes, channels); received shape "
                             f"{describe_shape(sequences_shape)}")
        super().build(sequences_shape, initial_state_shape)

    def get_initial_state(self, batch_size):
        return self.cell.get_initial_state(batch_size)

    def compute_output_shape(self, sequences_shape, initial_state_shape=None):
        sequences_shape = tuple(sequences_shape)
        step = (sequences_shape[0], *sequences_shape[2:])
        spatial = cu.spatial_dims(step, self.cell.data_format)
        state = self.cell.step_output_shape(sequences_shape[0], spatial)
        output = ((state[0], sequences_shape[1], *state[1:]) if self.return_sequences
                  else state)
        if self.return_state:
            return (output, state, state)
        return output

    def get_config(self) -> dict:
        config = super().get_config()
        config.pop("rank")
        return config


class ConvLSTM1D(ConvLSTM):
    """A convolutional LSTM over ``(batch, time, steps, channels)`` (Keras's
    ``ConvLSTM1D``); see :class:`ConvLSTM`.

    Args:
        filters: Number of output channels of the convolutions.
        kernel_size: Size of the convolution window: an int or a tuple of one int per spatial
            axis.
        strides: Step of the input convolution's window (an int or a tuple).
        padding: 'valid' or 'same' padding of the input convolution.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
        dilation_rate: Dilation of the input convolution (an int or a tuple).
        activation: Activation of the output and candidate state (default tanh).
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
    """
    rank = 1


class ConvLSTM2D(ConvLSTM):
    """A convolutional LSTM over ``(batch, time, rows, cols, channels)`` (Keras's
    ``ConvLSTM2D``); see :class:`ConvLSTM`.

    Args:
        filters: Number of output channels of the convolutions.
        kernel_size: Size of the convolution window: an int or a tuple of one int per spatial
            axis.
        strides: Step of the input convolution's window (an int or a tuple).
        padding: 'valid' or 'same' padding of the input convolution.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
        dilation_rate: Dilation of the input convolution (an int or a tuple).
        activation: Activation of the output and candidate state (default tanh).
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
    """
    rank = 2


class ConvLSTM3D(ConvLSTM):
    """A convolutional LSTM over ``(batch, time, dim1, dim2, dim3, channels)`` (Keras's
    ``ConvLSTM3D``); see :class:`ConvLSTM`.

    Args:
        filters: Number of output channels of the convolutions.
        kernel_size: Size of the convolution window: an int or a tuple of one int per spatial
            axis.
        strides: Step of the input convolution's window (an int or a tuple).
        padding: 'valid' or 'same' padding of the input convolution.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
        dilation_rate: Dilation of the input convolution (an int or a tuple).
        activation: Activation of the output and candidate state (default tanh).
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
    """
    rank = 3
