"""Trying layers on symbolic tensors: the output shape per sample, or None when the call
fails, the output is not floating point, or it is empty or too large (``MAX_ELEMENTS``)."""
from __future__ import annotations

import math

import lamina

from .catalogue import Choice

MAX_ELEMENTS = 256          # per sample, after each layer: keeps a step cheap


class Shapes:
    def __init__(self, dtype):
        self.dtype = dtype
        self.namespace = {"layers": lamina.layers, "ops": lamina.ops}

    def apply(self, choice: Choice, shape):
        try:
            x = lamina.Input(shape, dtype=self.dtype)
            layer = eval(choice.code, self.namespace)
            call = choice.call.format(layer="layer", x="x")
            out = eval(call, {"layer": layer, "x": x, "ops": lamina.ops})
            if choice.sequential:       # a real call in training mode too (noise_shape)
                layer(lamina.ops.zeros((2, *shape), dtype=self.dtype), training=True)
        except Exception:
            return None
        return _fits(out)

    def chain(self, codes, shape, input_dtype=None):
        """The shape after the layers ``codes`` in turn (on ids when ``input_dtype`` is
        an integer type; intermediate results may be integers, the last must be float)."""
        try:
            out = lamina.Input(shape, dtype=input_dtype or self.dtype)
            for code in codes:
                out = eval(code, self.namespace)(out)
        except Exception:
            return None
        return _fits(out)

    def merge(self, code, shape):
        """The shape after the merging layer ``code`` applied to two tensors of ``shape``."""
        try:
            a = lamina.Input(shape, dtype=self.dtype)
            b = lamina.Input(shape, dtype=self.dtype)
            out = eval(code, self.namespace)([a, b])
        except Exception:
            return None
        return _fits(out)


def _fits(out):
    if not hasattr(out, "shape") or "float" not in str(out.dtype):
        return None
    shape = tuple(out.shape[1:])
    if not shape or None in shape or 0 in shape or math.prod(shape) > MAX_ELEMENTS:
        return None
    return shape
