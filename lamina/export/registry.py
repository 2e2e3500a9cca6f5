"""The converter registry of the ONNX export: one function per Lamina op name.

A converter turns one node of Lamina's optimized inference graph into ONNX nodes::

    from lamina.export.registry import register_onnx_converter

    @register_onnx_converter("dense_bias_act")          # one or more op names
    def _dense(ctx, node):
        x, kernel, bias = ctx.inputs(node)              # ONNX value names of the inputs
        y = ctx.add_node("Gemm", [x, kernel, bias])     # returns the output name(s)
        return [ctx.activation(y, node.attrs["activation"], node)]

It receives ``ctx`` (:class:`~lamina.export.context.OnnxContext`: ``inputs``,
``add_node``, ``constant``, ``value``, ``shape``, ``opset``, ``fail``) and the graph
``node`` (``node.op.name``, ``node.attrs``, ``node.inputs``, ``node.outputs``,
``node.layer``), and returns one ONNX value name per ``node.outputs``. Converters live in
small per-family modules under ``lamina/export/converters/``; a new module is listed in
``lamina/export/converters/__init__.py``. A converter that cannot express an attribute
value calls ``ctx.fail(node, "why")`` (an :class:`OnnxExportError` naming the layer).
Nodes whose inputs are all constants (weights, folded BatchNorm factors...) never reach a
converter: the exporter evaluates them and writes the result as an initializer.
"""
from __future__ import annotations

from typing import Callable

from ..graph.errors import ExportError

CONVERTERS: dict[str, Callable] = {}


class OnnxExportError(ExportError):
    """A model (or one of its layers) that has no ONNX form, or an export that failed."""


def register_onnx_converter(*op_names: str, replace: bool = False):
    """Decorator: ``fn(ctx, node) -> [output names]`` converts the ops ``op_names``.
    Registering a name twice raises unless ``replace=True``."""
    if not op_names or not all(isinstance(n, str) and n for n in op_names):
        raise TypeError(f"register_onnx_converter: expected one or more op names; "
                        f"received {op_names!r}")

    def decorate(fn):
        for name in op_names:
            if name in CONVERTERS and not replace and CONVERTERS[name] is not fn:
                raise ValueError(f"register_onnx_converter: op {name!r} already has a "
                                 f"converter ({CONVERTERS[name].__module__}."
                                 f"{CONVERTERS[name].__name__}); pass replace=True")
            CONVERTERS[name] = fn
        return fn
    return decorate


def get_converter(op_name: str):
    """The converter of ``op_name``, or None."""
    from . import converters  # noqa: F401  (registers the built-in families)
    return CONVERTERS.get(op_name)


__all__ = ["CONVERTERS", "OnnxExportError", "register_onnx_converter", "get_converter"]
