"""``HostLayer``: a preprocessing layer that works on host data (Python or numpy strings,
or integers it hashes), outside any graph.

Lamina has no string tensor dtype, so these layers run where Keras recommends running them:
in the input pipeline (``dataset.map(layer)``, or on numpy arrays before ``fit``). Called
directly they take lists, numpy arrays or tensors and return tensors. Called on a symbolic
tensor (in a functional model, or while a graph is traced) they raise an error that names
the layer and says to preprocess the data first.
"""
from __future__ import annotations

from .. import call_context
from ...core.symbolic import SymbolicTensor
from ... import tree
from ..layer import Layer
from ...backend.host_data import RaggedDataError


class HostLayer(Layer):
    """Calls ``call`` on the data as given (no tensor conversion, no autocast)."""

    def __call__(self, inputs=None, *args, **kwargs):
        if inputs is None and "inputs" in kwargs:
            inputs = kwargs.pop("inputs")
        kwargs.pop("training", None)
        kwargs.pop("mask", None)
        flat = tree.flatten(inputs) if isinstance(inputs, (list, tuple, dict)) else [inputs]
        if any(isinstance(x, SymbolicTensor) for x in flat) or call_context.is_tracing():
            raise TypeError(
                f"{self.name}: {type(self).__name__} works on host data (Python or numpy "
                f"strings and integers) and cannot be part of a model's graph; apply it to "
                f"the data first (e.g. dataset.map({self.name}) or "
                f"x = {self.name}(numpy_array) before fit/predict) and feed the model its "
                f"output")
        self.built = True
        try:
            return self.call(inputs, *args, **kwargs)
        except RaggedDataError as exc:
            raise ValueError(f"{self.name}: {exc}") from None
