"""Recurrent layers as ONNX ``LSTM`` / ``GRU`` / ``RNN`` ops (not loops).

They are converted at the layer level: while the model is traced for export, the ``call``
of each LSTM / GRU / SimpleRNN (or ``RNN`` over one of their cells) is recorded with its
symbolic inputs and outputs (``lamina/export/tracing.py``); the exporter then writes one
ONNX op from the layer's weights and skips the step loop inside it. Conversions:

- gate order: Keras's LSTM kernels hold the gates i, f, c, o, ONNX's i, o, f, c; GRU's
  z, r, h are the same in both. Kernels are transposed to ONNX's (gates*units, features);
  ``reset_after=True`` is ``linear_before_reset=1`` with the recurrent bias;
- masks of any pattern: each row's kept steps are moved to the front and counted into
  ``sequence_lens``; the outputs of masked steps repeat the last output (zeros with
  ``zero_output_for_mask=True``), as in Keras (``recurrent_mask.py``);
- ``go_backwards`` is ``direction="reverse"`` (with a mask: the inputs reversed first), the
  sequence output in processing order;
- ``return_sequences`` / ``return_state`` pick ``Y`` / ``Y_h`` / ``Y_c``; ``initial_state``
  is ``initial_h`` / ``initial_c``. ``Bidirectional`` is its two layers, two ops.
"""
from __future__ import annotations

from ... import activations, tree
from ...layers.recurrent.gru import GRUCell
from ...layers.recurrent.lstm import LSTMCell
from ...layers.recurrent.rnn import RNN
from ...layers.recurrent.simple_rnn import SimpleRNNCell
from ..context import onnx_dtype
from ..layer_converters import LAYER_CONVERTERS
from ..registry import OnnxExportError
from . import recurrent_mask as masking

# Keras activation name -> (ONNX activation, alpha, beta)
_ACTIVATIONS = {"sigmoid": ("Sigmoid", None, None), "tanh": ("Tanh", None, None),
                "relu": ("Relu", None, None), "linear": ("Affine", 1.0, 0.0),
                "hard_sigmoid": ("HardSigmoid", 1.0 / 6.0, 0.5), "elu": ("Elu", 1.0, None),
                "softsign": ("Softsign", None, None), "softplus": ("Softplus", None, None)}


def _kind(layer):
    """"LSTM" / "GRU" / "RNN" for a layer this module converts, else None."""
    if not isinstance(layer, RNN):
        return None
    return {LSTMCell: "LSTM", GRUCell: "GRU", SimpleRNNCell: "RNN"}.get(type(layer.cell))


class RecurrentCall:
    """One recorded call of a recurrent layer: emits its ONNX op when first needed."""

    def __init__(self, layer, sequences, initial_state, mask, outputs):
        self.layer = layer
        self.sequences = sequences
        self.states = [s for s in tree.flatten(initial_state)] if initial_state is not None \
            else []
        self.mask = tree.flatten(mask)[0] if mask is not None else None
        self.outputs = tree.flatten(outputs)
        self.inputs = [sequences, *self.states] + ([self.mask] if mask is not None else [])

    def emit(self, ctx) -> None:
        layer, cell, kind = self.layer, self.layer.cell, _kind(self.layer)
        where = f"layer '{layer.name}' ({type(layer).__name__})"
        w, r, b = _weights(ctx, cell, kind)
        units = int(cell.units)
        x, seq_lens, plan = ctx.name_of(self.sequences), "", None
        if self.mask is not None:              # any mask: kept steps first (recurrent_mask)
            x, seq_lens, plan = masking.compact(ctx, x, ctx.name_of(self.mask),
                                                layer.go_backwards)
        x = ctx.add_node("Transpose", [x], perm=[1, 0, 2])
        initial = [ctx.name_of(state) for state in self.states]
        inputs = [x, w, r, b or "", seq_lens]
        inputs += [ctx.add_node("Unsqueeze", [state, ctx.ints([0])]) for state in initial]
        while inputs and inputs[-1] == "":
            inputs.pop()
        attrs = _activation_attrs(cell, kind, where)
        if kind == "GRU":
            attrs["linear_before_reset"] = int(bool(cell.reset_after))
        backwards = layer.go_backwards and plan is None
        n_out = 3 if kind == "LSTM" else 2
        outs = ctx.add_node(kind, inputs, outputs=n_out, hidden_size=units,
                            direction="reverse" if backwards else "forward", **attrs)
        finals = [ctx.add_node("Squeeze", [out, ctx.ints([0])]) for out in outs[1:]]
        y = None
        if layer.return_sequences:
            y = ctx.add_node("Squeeze", [outs[0], ctx.ints([1])])
            y = ctx.add_node("Transpose", [y], perm=[1, 0, 2])
            if backwards:                                # processing order, as Keras
                y = masking.reverse_time(ctx, y)
        if plan is not None:
            finals, y, last = self._masked(ctx, plan, finals, y, initial)
        else:
            last = finals[0]
        results = [y if layer.return_sequences else last]
        if layer.return_state:
            results += finals
        if len(results) != len(self.outputs):
            raise OnnxExportError(f"export(format='onnx'): {where} returned "
                                  f"{len(self.outputs)} tensors; its ONNX form gives "
                                  f"{len(results)}")
        for tensor, name in zip(self.outputs, results):
            ctx.bind(tensor, name)

    def _masked(self, ctx, plan, finals, y, initial):
        """Final states, sequence and last output of a masked call from the op's results
        over the compacted steps."""
        zero_output = bool(self.layer.zero_output_for_mask)
        zero = ctx.constant(0, dtype=str(self.outputs[0].dtype))
        finals = [masking.final_state(ctx, plan, state, initial[i] if i < len(initial)
                                      else zero) for i, state in enumerate(finals)]
        if y is not None:
            y = masking.sequence(ctx, plan, y, initial[0] if initial else None, zero_output,
                                 zero)
        return finals, y, masking.last_output(ctx, plan, finals[0], zero_output, zero)


def _weights(ctx, cell, kind):
    """ONNX's W (1, G*H, F), R (1, G*H, H) and B (1, 2*G*H) initializers (B None without a
    bias)."""
    units = int(cell.units)
    kernel = ctx.backend.asarray(cell.kernel.numpy())
    recurrent = ctx.backend.asarray(cell.recurrent_kernel.numpy())
    bias = ctx.backend.asarray(cell.bias.numpy()) if cell.bias is not None else None
    if kind == "LSTM":
        order = [0, 3, 1, 2]                      # Keras i, f, c, o -> ONNX i, o, f, c
        columns = [g * units + k for g in order for k in range(units)]
        kernel, recurrent = kernel[:, columns], recurrent[:, columns]
        bias = None if bias is None else bias[columns]
    if bias is not None:
        if kind == "GRU" and cell.reset_after:     # (2, 3H): input bias, recurrent bias
            bias = bias.reshape(-1)
        else:
            bias = ctx.backend.concatenate([bias, ctx.backend.full(bias.shape, 0, str(bias.dtype))],
                                           0)
    w = ctx.constant(kernel.T[None].copy(), "W")
    r = ctx.constant(recurrent.T[None].copy(), "R")
    b = ctx.constant(bias[None].copy(), "B") if bias is not None else None
    return w, r, b


def _activation_attrs(cell, kind, where) -> dict:
    names = [activations.serialize(cell.activation)]
    if kind != "RNN":
        names.insert(0, activations.serialize(cell.recurrent_activation))
    if kind == "LSTM":
        names.append(names[1])
    picked = []
    for name in names:
        if not isinstance(name, str) or name not in _ACTIVATIONS:
            raise OnnxExportError(f"export(format='onnx'): {where} uses activation {name!r}, "
                                  f"which ONNX's {kind} op does not have; expected one of "
                                  f"{sorted(_ACTIVATIONS)}")
        picked.append(_ACTIVATIONS[name])
    attrs = {"activations": [p[0] for p in picked]}
    if any(p[1] is not None for p in picked):
        attrs["activation_alpha"] = [p[1] if p[1] is not None else 0.0 for p in picked]
    if any(p[2] is not None for p in picked):
        attrs["activation_beta"] = [p[2] if p[2] is not None else 0.0 for p in picked]
    return attrs


def _recorder(layer, calls: list):
    original = type(layer).call

    def call(sequences, initial_state=None, mask=None, training=None, **kwargs):
        outputs = original(layer, sequences, initial_state=initial_state, mask=mask,
                           training=training, **kwargs)
        calls.append(RecurrentCall(layer, sequences, initial_state, mask, outputs))
        return outputs
    return call


LAYER_CONVERTERS.append((lambda layer: _kind(layer) is not None, _recorder))
