"""The layers that have no ONNX form, with the reason; exporting a model that holds one
raises :class:`~lamina.export.registry.OnnxExportError` naming the layer (checked before
tracing, by :func:`check_exportable`)."""
from __future__ import annotations

from .registry import OnnxExportError

_LOOP = ("its step loop has no ONNX operator (ONNX's LSTM/GRU/RNN have matrix-product gates "
         "only), and this exporter writes no ONNX Loop")

NO_ONNX_FORM: dict[str, str] = {
    "ConvLSTM1D": f"a convolutional LSTM: {_LOOP}",
    "ConvLSTM2D": f"a convolutional LSTM: {_LOOP}",
    "ConvLSTM3D": f"a convolutional LSTM: {_LOOP}",
    "RNN": f"(only) over a cell other than LSTMCell, GRUCell or SimpleRNNCell (StackedRNNCells, "
           f"a custom cell): {_LOOP}; stack LSTM/GRU/SimpleRNN layers instead",
    "ContrastLimitedAdaptiveHistogramEqualization":
        "its per-tile histograms gather over the whole batch at once, which needs a "
        "concrete batch size while tracing; an ONNX file has a dynamic batch",
}

RNN_CELLS = ("LSTMCell", "GRUCell", "SimpleRNNCell")


def unsupported_reason(layer) -> str | None:
    """Why ``layer`` has no ONNX form (None when it has one)."""
    name = type(layer).__name__
    if name in NO_ONNX_FORM and name != "RNN":
        return NO_ONNX_FORM[name]
    from ..layers.recurrent.rnn import RNN
    cell = getattr(layer, "cell", None)
    if isinstance(layer, RNN) and type(cell).__name__ not in RNN_CELLS:
        return (f"its cell is {type(cell).__name__}, and only RNNs over "
                f"{', '.join(RNN_CELLS)} have ONNX ops; {_LOOP}")
    return None


def check_exportable(model) -> None:
    """Raise OnnxExportError naming the first layer of ``model`` without an ONNX form."""
    from .tracing import all_layers
    for layer in all_layers(model):
        if getattr(layer, "stateful", False) is True:
            raise OnnxExportError(f"export(format='onnx'): layer '{layer.name}' is stateful; "
                                  f"ONNX models keep no state between runs (export a "
                                  f"stateless copy and feed the states as initial_state)")
        reason = unsupported_reason(layer)
        if reason is not None:
            raise OnnxExportError(f"export(format='onnx'): layer '{layer.name}' "
                                  f"({type(layer).__name__}) has no ONNX form: {reason}")
