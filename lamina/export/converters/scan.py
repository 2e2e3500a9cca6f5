"""``step_loop`` (a scan over time whose step is a sub-graph, ``lamina/ops/step_loop.py``)
as ONNX ``Scan``: the step body's nodes are converted into the Scan's body graph. LSTM /
GRU / SimpleRNN layers never get here (they become ONNX's recurrent ops,
``recurrent.py``); ConvLSTM layers and RNNs over other cells do."""
from __future__ import annotations

from ...layers.recurrent.rnn import RNN
from ..context import onnx_dtype
from ..layer_converters import LAYER_CONVERTERS
from ..onnx_export import _convert_node
from ..registry import OnnxExportError, register_onnx_converter
from .recurrent import _kind


def _info(name: str, tensor):
    from onnx import helper
    return helper.make_tensor_value_info(name, onnx_dtype(tensor.dtype), list(tensor.shape))


@register_onnx_converter("step_loop")
def _step_loop(ctx, node):
    from onnx import helper
    body = node.attrs["body"]
    n_seq, n_carry = body.n_seq, body.n_carry
    sequences = node.inputs[:n_seq]
    carries = node.inputs[n_seq:n_seq + n_carry]
    sub = ctx.subgraph()
    for placeholder, outer in zip(body.inputs[n_seq + n_carry:], node.inputs[n_seq + n_carry:]):
        if ctx.is_constant(outer):                  # weights: folded inside the body too
            sub.set_value(placeholder, ctx.value(outer))
        else:
            sub.bind(placeholder, ctx.name_of(outer))
    inputs = []
    for placeholder in [*body.inputs[n_seq:n_seq + n_carry], *body.inputs[:n_seq]]:
        name = sub.fresh("step_in")
        sub.bind(placeholder, name)
        inputs.append(_info(name, placeholder))
    for inner in body.nodes:
        _convert_node(sub, inner, {})
    outputs = []
    for out in body.outputs:
        name = sub.fresh("step_out")
        sub.add_node("Identity", [sub.name_of(out)], [name])
        outputs.append(_info(name, out))
    graph = helper.make_graph(sub.nodes, ctx.fresh("step_body"), inputs, outputs)
    reverse = 1 if node.attrs.get("go_backwards") else 0
    n_ys = len(body.outputs) - n_carry
    stacked = {"scan_output_axes": [1] * n_ys} if n_ys else {}
    names = ctx.add_node("Scan", [ctx.name_of(c) for c in carries] +
                         [ctx.name_of(s) for s in sequences],
                         outputs=[ctx.fresh("scan") for _ in node.outputs], body=graph,
                         num_scan_inputs=n_seq, scan_input_axes=[1] * n_seq,
                         scan_input_directions=[reverse] * n_seq, **stacked)
    return list(names)


def _known_length_recorder(layer, calls: list):
    """An RNN written as a Scan must be traced over a known number of timesteps: over an
    unknown one, the layer computes only its output shapes (``symbolic_rnn``)."""
    original = type(layer).call

    def call(sequences, *args, **kwargs):
        if sequences.shape[1] is None:
            raise OnnxExportError(
                f"export(format='onnx'): layer '{layer.name}' ({type(layer).__name__}) runs "
                f"its cell as an ONNX Scan, which needs a known number of timesteps; "
                f"received inputs of shape {tuple(sequences.shape)}: give the Input a "
                f"length or pass an input_signature with one")
        return original(layer, sequences, *args, **kwargs)
    return call


def _scanned_rnn(layer) -> bool:
    return isinstance(layer, RNN) and _kind(layer) is None


LAYER_CONVERTERS.append((_scanned_rnn, _known_length_recorder))
