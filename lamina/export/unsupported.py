"""The layers that have no ONNX form, with the reason; exporting a model that holds one
raises :class:`~lamina.export.registry.OnnxExportError` naming the layer."""
from __future__ import annotations

NO_ONNX_FORM: dict[str, str] = {}
