"""Deployment: ``model.export(path, format="onnx")`` writes the optimized inference graph as
an ONNX model (``lamina/export/onnx_export.py``); ``python -m lamina.export MODEL.keras
OUT.onnx [--opset N]`` does it from the command line.

The ``onnx`` package is an optional extra (``pip install lamina[onnx]``), imported only
when a model is exported. Converters are registered per op name with
:func:`register_onnx_converter` (``lamina/export/registry.py`` tells how to write one);
the layers that have no ONNX form are listed, with the reason, in :data:`NO_ONNX_FORM`.
"""
from ..models.export_formats import register_export_format
from .onnx_export import export_onnx as _export
from .registry import CONVERTERS, OnnxExportError, register_onnx_converter
from .unsupported import NO_ONNX_FORM


def export_onnx(model, filepath, input_signature=None, opset_version=None, verbose=None):
    """Write ``model`` as an ONNX file (see :mod:`lamina.export.onnx_export`)."""
    return _export(model, filepath, input_signature=input_signature,
                   opset_version=opset_version, verbose=verbose)


def _write_onnx(model, filepath, verbose=None, input_signature=None, **kwargs) -> None:
    """``model.export(filepath, format="onnx")``: keyword ``opset_version``."""
    unknown = sorted(set(kwargs) - {"opset_version"})
    if unknown:
        raise TypeError(f"{model.name}.export(format='onnx'): unexpected argument(s) "
                        f"{unknown}; it takes 'opset_version'")
    export_onnx(model, filepath, input_signature=input_signature,
                opset_version=kwargs.get("opset_version"), verbose=verbose)


register_export_format("onnx", _write_onnx)

__all__ = ["export_onnx", "register_onnx_converter", "OnnxExportError", "CONVERTERS",
           "NO_ONNX_FORM"]
