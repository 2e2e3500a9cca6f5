"""Layers written as one ONNX op of their own rather than op by op (recurrent layers as
ONNX ``LSTM`` / ``GRU`` / ``RNN``). Filled in by ``lamina/export/converters/recurrent.py``."""
from __future__ import annotations

LAYER_CONVERTERS: list = []      # (predicate(layer) -> bool, make_recorder(layer, calls))


def layer_call_recorder(layer, calls: list):
    from . import converters  # noqa: F401  (the converters import this module to register)
    for accepts, make in LAYER_CONVERTERS:
        if accepts(layer):
            return make(layer, calls)
    return None
