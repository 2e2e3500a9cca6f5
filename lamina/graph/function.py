"""``lamina.jit``: compile a function of tensors and variables into a graph, once per input
signature, and run the optimized plan afterwards (like ``tf.function`` / ``jax.jit``)."""
from __future__ import annotations

import collections
import functools
import warnings

from .. import tree
from ..autograd.tensor import TensorBase
from ..backend import get_backend
from . import trace as tracing
from .executor import Plan, pack_results
from .ir import Graph
from ..core.symbolic import SymbolicTensor

MAX_TRACES = 32            # LRU bound of the cache of traced signatures
RETRACE_WARNING = 8        # warn when one function has traced this many signatures


def _signature(args, kwargs, backend) -> tuple:
    leaves = tree.flatten((args, kwargs))
    parts = []
    for leaf in leaves:
        if isinstance(leaf, TensorBase):
            parts.append(("tensor", tuple(leaf.shape), leaf.dtype))
        else:
            parts.append(("static", repr(leaf)))
    return (backend.name, tuple(parts), _structure(args), _structure(kwargs))


def _structure(value):
    if isinstance(value, dict):
        return tuple((k, _structure(value[k])) for k in sorted(value))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_structure(v) for v in value))
    return None


class GraphFunction:
    """A Python function run as compiled graphs, one per input signature."""

    def __init__(self, fn, name: str | None = None, passes=None):
        self.fn = fn
        self.name = name or getattr(fn, "__name__", "function")
        self.passes = passes
        self._plans: collections.OrderedDict = collections.OrderedDict()
        self.trace_count = 0
        functools.update_wrapper(self, fn)

    def __call__(self, *args, **kwargs):
        backend = get_backend()
        key = _signature(args, kwargs, backend)
        entry = self._plans.get(key)
        if entry is None:
            entry = self._trace(args, kwargs, backend)
            self._plans[key] = entry
            if len(self._plans) > MAX_TRACES:
                self._plans.popitem(last=False)
        else:
            self._plans.move_to_end(key)
        graph, plan = entry
        arrays = [leaf.data for leaf in tree.flatten((args, kwargs))
                  if isinstance(leaf, TensorBase)]
        return pack_results(graph, backend, plan(arrays))

    def trace(self, *args, **kwargs) -> Graph:
        """The optimized graph for these arguments (traced now if not cached)."""
        backend = get_backend()
        key = _signature(args, kwargs, backend)
        if key not in self._plans:
            self._plans[key] = self._trace(args, kwargs, backend)
        return self._plans[key][0]

    def _trace(self, args, kwargs, backend):
        from . import passes as pass_registry
        self.trace_count += 1
        if self.trace_count == RETRACE_WARNING:
            warnings.warn(f"lamina.jit: {self.name} has been traced {self.trace_count} times "
                          f"(one per new input shape or dtype); keep shapes fixed to avoid "
                          f"retracing", stacklevel=3)
        symbols = []

        def symbolic(leaf):
            if isinstance(leaf, TensorBase):
                s = SymbolicTensor(leaf.shape, leaf.dtype, name=f"input_{len(symbols)}")
                symbols.append(s)
                return s
            return leaf
        leaves = [symbolic(leaf) for leaf in tree.flatten((list(args), kwargs))]
        sym_args, sym_kwargs = tree.pack_sequence_as((list(args), kwargs), leaves)
        recorded = tracing.Trace()
        self.trace_error = None
        try:
            with tracing.tracing_into(recorded):
                outputs = self.fn(*sym_args, **sym_kwargs)
        except Exception as error:        # e.g. Python control flow on a tensor's value
            self.trace_error = error
            raise
        graph = Graph(symbols, outputs, recorded.placeholders.values(),
                      recorded.updates.values(), name=self.name)
        graph = pass_registry.optimize(graph, self.passes)
        return graph, Plan(graph, backend)


def jit(fn=None, *, passes=None):
    """Decorator: ``@lamina.jit`` compiles ``fn`` into a graph per input signature."""
    if fn is None:
        return lambda f: GraphFunction(f, passes=passes)
    return GraphFunction(fn, passes=passes)
