"""The whole-sequence path of ``LSTM`` and ``GRU``: one ``lstm_sequence``/``gru_sequence`` op
(``lamina/ops/fused_rnn.py``) instead of the step loop, where it computes what the step loop
computes and oneDNN runs it (Keras's TensorFlow backend picks cuDNN by the same kind of
rule).

Why: the step loop runs a few dozen small ops per time step each way; the fused op runs
the sequence in one oneDNN call each way (LSTM(128), 50 steps, batch 32: see
``benchmarks/rnn_onednn.py``). The numbers are the step loop's up to float32 rounding (a
different summation order), and eager and graph mode call the same op, so they agree.

The fused path is taken when all of these hold, else the layer runs its step loop:

* the op runs on oneDNN (``runs_fused``: numpy backend with oneDNN on, float32 inputs and
  compute dtype; never on a GPU backend, never with ``LAMINA_ONEDNN=0``);
* the cell is the layer's own LSTMCell/GRUCell with tanh and sigmoid activations and no
  ``recurrent_dropout`` (input ``dropout`` is applied to the inputs first, with the same
  per-sequence mask the cell would draw);
* no mask, a known number of time steps, ``unroll=False``, and not ``use_cudnn=False``
  (Keras's switch to the generic implementation; "auto" and True take the fused path where
  it applies, as Keras takes cuDNN's).

``go_backwards`` runs right to left (the returned sequence is reversed along time, as
Keras returns it); ``return_sequences``, ``return_state``, initial and stateful states are
handled by ``RNN.call`` as for the step loop.
"""
from __future__ import annotations

from ... import activations, ops
from ...ops import fused_rnn


def _plain_cell(layer, cell_class) -> bool:
    cell = layer.cell
    return (type(cell) is cell_class and cell.activation is activations.tanh
            and cell.recurrent_activation is activations.sigmoid
            and not cell.recurrent_dropout)


def _usable(layer, cell_class, sequences, mask) -> bool:
    return (mask is None and not layer.unroll and layer.use_cudnn is not False
            and sequences.shape[1] is not None
            and len(sequences.shape) == 3 and layer.compute_dtype == "float32"
            and sequences.dtype == "float32" and _plain_cell(layer, cell_class)
            and fused_rnn.runs_fused(sequences))


def _dropped(cell, sequences, training):
    """``sequences`` times the cell's input dropout mask of this sequence (one (batch,
    features) mask for every step, drawn as the cell's first step would draw it)."""
    if not training:
        return sequences
    mask = cell.get_dropout_mask(sequences[:, 0])
    if mask is None:
        return sequences
    return ops.multiply(sequences, ops.expand_dims(mask, 1))


def _results(layer, y, finals):
    """``(last output, sequence or None, final states)`` as ``run_rnn`` returns them."""
    sequence = None
    if layer.return_sequences:
        sequence = ops.flip(y, axis=1) if layer.go_backwards else y
    return finals[0], sequence, list(finals)


def lstm_sequence(layer, cell_class, sequences, states, mask, training):
    """The LSTM layer's ``(last, sequence, states)`` by one fused op, or None."""
    if not _usable(layer, cell_class, sequences, mask):
        return None
    cell = layer.cell
    h0, c0 = states[0], states[1]
    bias = () if cell.bias is None else (cell.bias,)
    y, h, c = fused_rnn.lstm_sequence(_dropped(cell, sequences, training), h0, c0,
                                      cell.kernel, cell.recurrent_kernel, *bias,
                                      reverse=layer.go_backwards)
    return _results(layer, y, (h, c))


def gru_sequence(layer, cell_class, sequences, states, mask, training):
    """The GRU layer's ``(last, sequence, states)`` by one fused op, or None."""
    if not _usable(layer, cell_class, sequences, mask):
        return None
    cell = layer.cell
    bias = () if cell.bias is None else (cell.bias,)
    y, h = fused_rnn.gru_sequence(_dropped(cell, sequences, training), states[0],
                                  cell.kernel, cell.recurrent_kernel, *bias,
                                  reset_after=cell.reset_after, reverse=layer.go_backwards)
    return _results(layer, y, (h,))
