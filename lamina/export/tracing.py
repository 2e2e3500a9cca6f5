"""Trace a model's inference call for the ONNX export, recording the calls of the layers
that are written as one ONNX op of their own (``lamina/export/layer_converters.py``)."""
from __future__ import annotations

import contextlib

from .. import tree
from ..core.symbolic import SymbolicTensor
from ..errors import LaminaError
from ..graph import passes, trace as tracing
from ..graph.ir import Graph
from .layer_converters import layer_call_recorder
from .registry import OnnxExportError


def all_layers(model) -> list:
    """``model`` and every layer inside it (wrapped layers, cells included)."""
    found, stack, seen = [], [model], set()
    while stack:
        layer = stack.pop()
        if id(layer) in seen:
            continue
        seen.add(id(layer))
        found.append(layer)
        stack.extend(layer.__dict__.get("_layers", None) or [])
        stack.extend(getattr(layer, "layers", None) or [])
        stack.extend(getattr(layer, name) for name in ("forward_layer", "backward_layer",
                                                       "layer", "cell")
                     if getattr(layer, name, None) is not None)
    return found


@contextlib.contextmanager
def _recording(model, calls: list):
    """Wrap (on the instance) the ``call`` of every layer that has a layer converter, so
    that each call appends a LayerCall with its symbolic inputs and outputs."""
    patched = []
    try:
        for layer in all_layers(model):
            recorder = layer_call_recorder(layer, calls)
            if recorder is not None:
                layer.__dict__["call"] = recorder
                patched.append(layer)
        yield
    finally:
        for layer in patched:
            layer.__dict__.pop("call", None)


def trace_inference(model, specs, structure):
    """``(optimized Graph, recorded layer calls)`` of ``model(inputs, training=False)``."""
    if not model.built:
        raise ValueError(f"{model.name}.export: the model is not built; call it on data or "
                         f"build it before exporting")
    symbols = [SymbolicTensor(s.shape, s.dtype, name=s.name) for s in specs]
    inputs = tree.pack_sequence_as(structure, symbols)
    recorded, calls = tracing.Trace(), []
    try:
        with _recording(model, calls), tracing.tracing_into(recorded):
            outputs = model(inputs, training=False)
    except LaminaError:
        raise
    except Exception as error:
        raise OnnxExportError(f"{model.name}.export(format='onnx'): tracing the model for "
                              f"inputs {[tuple(s.shape) for s in specs]} (None: dynamic) "
                              f"failed: {type(error).__name__}: {error}") from error
    if recorded.updates:
        written = ", ".join(v.path for v, _ in recorded.updates.values())
        raise OnnxExportError(f"{model.name}.export: the inference call writes variables "
                              f"({written}); only stateless models can be exported")
    graph = Graph(symbols, outputs, recorded.placeholders.values(), [],
                  name=f"{model.name}.inference")
    # Every pass but the elementwise fusion, which serves a backend's own kernels (numba or
    # CUDA): ONNX Runtime fuses for itself, and the recurrent-layer patterns need the ops.
    kept = [name for name, _ in passes.PIPELINE if name != "fuse_elementwise"]
    return passes.optimize(graph, kept), calls
