"""``HostLayer``: a preprocessing layer that works on host data (Python or numpy strings,
or integers it hashes), outside any graph.

Lamina has no string tensor dtype, so these layers run where Keras recommends running them:
in the input pipeline (``dataset.map(layer)``, or on numpy arrays before ``fit``). Called
directly they take lists, numpy arrays or tensors and return tensors.

Layers that also take numeric tensors (Hashing, HashedCrossing, IntegerLookup) can be
called on a symbolic tensor to build a functional model, as in Keras: the output's shape
and dtype come from :meth:`HostLayer.host_output_spec`, and calling the model on data runs
the layer on the host. A compiled graph (``fit``/``predict`` trace the model) cannot hold
them, just as Keras's JAX backend cannot jit them: there, and for layers whose inputs are
strings, the call raises an error that names the layer and says to preprocess the data
first.
"""
from __future__ import annotations

from .. import call_context
from ..call_protocol import _record_node
from ...core.symbolic import SymbolicTensor
from ... import tree
from ..layer import Layer
from ...backend.host_data import RaggedDataError
from ...graph import trace as graph_trace


class HostLayer(Layer):
    """Calls ``call`` on the data as given (no tensor conversion, no autocast)."""

    def host_output_spec(self, inputs):
        """The symbolic output for symbolic ``inputs``; None when the layer cannot be part
        of a functional model (its inputs are strings)."""
        return None

    def __call__(self, inputs=None, *args, **kwargs):
        if inputs is None and "inputs" in kwargs:
            inputs = kwargs.pop("inputs")
        kwargs.pop("training", None)
        kwargs.pop("mask", None)
        flat = tree.flatten(inputs) if isinstance(inputs, (list, tuple, dict)) else [inputs]
        symbolic = any(isinstance(x, SymbolicTensor) for x in flat)
        spec = self.host_output_spec(inputs) if symbolic and \
            graph_trace.active() is None else None
        if spec is None and (symbolic or call_context.is_tracing()):
            raise TypeError(
                f"{self.name}: {type(self).__name__} works on host data (Python or numpy "
                f"strings and integers) and cannot be part of a model's graph; apply it to "
                f"the data first (e.g. dataset.map({self.name}) or "
                f"x = {self.name}(numpy_array) before fit/predict) and feed the model its "
                f"output")
        self.built = True
        if spec is not None:
            if call_context.is_tracing():          # compute_output_spec: no node
                return spec
            return _record_node(self, (inputs, *args), kwargs, spec)
        try:
            return self.call(inputs, *args, **kwargs)
        except RaggedDataError as exc:
            raise ValueError(f"{self.name}: {exc}") from None
