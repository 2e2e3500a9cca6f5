"""The layers that have no ONNX form, with the reason; exporting a model that holds one
raises :class:`~lamina.export.registry.OnnxExportError` naming the layer (checked before
tracing, by :func:`check_exportable`)."""
from __future__ import annotations

from .registry import OnnxExportError
from .tracing import all_layers

NO_ONNX_FORM: dict[str, str] = {
    "ContrastLimitedAdaptiveHistogramEqualization":
        "its per-tile histograms gather over the whole batch at once, which needs a "
        "concrete batch size while tracing; an ONNX file has a dynamic batch",
}


def unsupported_reason(layer) -> str | None:
    """Why ``layer`` has no ONNX form (None when it has one)."""
    return NO_ONNX_FORM.get(type(layer).__name__)


def check_exportable(model) -> None:
    """Raise OnnxExportError naming the first layer of ``model`` without an ONNX form."""
    for layer in all_layers(model):
        if getattr(layer, "stateful", False) is True:
            raise OnnxExportError(f"export(format='onnx'): layer '{layer.name}' is stateful; "
                                  f"ONNX models keep no state between runs (export a "
                                  f"stateless copy and feed the states as initial_state)")
        reason = unsupported_reason(layer)
        if reason is not None:
            raise OnnxExportError(f"export(format='onnx'): layer '{layer.name}' "
                                  f"({type(layer).__name__}) has no ONNX form: {reason}")
