"""``lamina.jit``: compile a function of tensors and variables into a graph, once per input
signature, and run the optimized plan afterwards (like ``tf.function`` / ``jax.jit``)."""
from __future__ import annotations

import collections
import functools
import threading
import warnings

from .. import tree
from ..autograd.tensor import TensorBase
from ..autograd.variable import Variable
from ..backend import get_backend
from ..ops import core as ops_core
from . import trace as tracing
from .executor import Plan, pack_results
from .shapes import ShapeMismatch, batch_size_of, concrete_shapes, relax_batch
from .ir import Graph
from ..core.symbolic import SymbolicTensor

MAX_TRACES = 32            # LRU bound of the cache of traced signatures
MAX_PLANS = 64             # LRU bound of the plans (one per batch size) of a relaxed graph
RETRACE_WARNING = 8        # warn when one function has traced this many signatures


def _is_host_array(leaf, backend) -> bool:
    """numpy/cupy arrays and numpy scalars: ``tf.function`` treats them as tensors."""
    if isinstance(leaf, TensorBase) or not hasattr(leaf, "shape") or \
            not hasattr(leaf, "dtype"):
        return False
    return backend.is_array(leaf) or type(leaf).__module__.split(".")[0] in ("numpy", "cupy")


def _as_inputs(name: str, args, kwargs, backend):
    """``args``/``kwargs`` with host arrays made Tensors (graph inputs keyed by shape and
    dtype, never by value), checking that every other leaf is hashable (a static value)."""
    def convert(where, value):
        def leaf_of(leaf):
            if _is_host_array(leaf, backend):
                return ops_core.convert_to_tensor(leaf)
            if not isinstance(leaf, TensorBase):
                try:
                    hash(leaf)
                except TypeError:
                    raise TypeError(
                        f"lamina.jit: {name}: argument {where} must be a tensor, an array, "
                        f"a structure (list, tuple, dict) of them or a hashable static value; "
                        f"received an unhashable {type(leaf).__name__}") from None
            return leaf
        return tree.map_structure(leaf_of, value)
    args = tuple(convert(f"{k} (positional)", a) for k, a in enumerate(args))
    kwargs = {key: convert(f"'{key}'", value) for key, value in kwargs.items()}
    return args, kwargs


class _VariableKey:
    """A Variable argument, keyed by identity: the graph reads and writes that variable
    (as ``tf.function`` does with a ``tf.Variable`` argument). Holding it keeps its id."""
    __slots__ = ("variable",)

    def __init__(self, variable):
        self.variable = variable

    def __hash__(self) -> int:
        return id(self.variable)

    def __eq__(self, other) -> bool:
        return isinstance(other, _VariableKey) and other.variable is self.variable


def _tensor_inputs(args, kwargs) -> list:
    """The tensor leaves fed to the graph at every call (Variables are read by the graph
    itself, not fed)."""
    return [leaf for leaf in tree.flatten((args, kwargs))
            if isinstance(leaf, TensorBase) and not isinstance(leaf, Variable)]


def _signature(args, kwargs, backend, relaxed: bool = False) -> tuple:
    """Tensors are keyed by shape and dtype (``relaxed``: without the batch size);
    Variables by identity; static values by type and value (hash/eq)."""
    leaves = tree.flatten((args, kwargs))
    parts = []
    for leaf in leaves:
        if isinstance(leaf, Variable):
            parts.append(("variable", _VariableKey(leaf)))
        elif isinstance(leaf, TensorBase):
            shape = relax_batch(leaf.shape) if relaxed else tuple(leaf.shape)
            parts.append(("tensor", shape, leaf.dtype))
        else:
            parts.append(("static", type(leaf), leaf))
    return (backend.name, tuple(parts), _structure(args), _structure(kwargs))


def _structure(value):
    if isinstance(value, dict):
        return tuple((k, _structure(value[k])) for k in sorted(value))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_structure(v) for v in value))
    return None


class _Traced:
    """One traced and optimized graph and its plans: one plan, or for a batch-polymorphic
    graph one per concrete batch size (sized by a shape walk, graph/shapes.py), cached."""

    def __init__(self, graph: Graph, backend, polymorphic: bool):
        self.graph = graph
        self.backend = backend
        self.polymorphic = polymorphic
        self.plans: collections.OrderedDict = collections.OrderedDict()
        if not polymorphic:
            self.plans[None] = Plan(graph, backend)

    def plan(self, batch: int | None, input_shapes) -> Plan:
        """The plan for inputs of ``input_shapes``; raises ShapeMismatch when the graph
        cannot run them."""
        key = batch if self.polymorphic else None
        plan = self.plans.get(key)
        if plan is None:
            known = concrete_shapes(self.graph, input_shapes)
            plan = self.plans[key] = Plan(self.graph, self.backend, shapes=known)
            if len(self.plans) > MAX_PLANS:
                self.plans.popitem(last=False)
        else:
            self.plans.move_to_end(key)
        return plan

    # Unpacks as (graph, plan), the plan being the most recently used one: what the cache
    # held before plans were per batch size (tests and benchmarks read it that way).
    def __iter__(self):
        return iter((self.graph, next(reversed(self.plans.values()))))

    def __getitem__(self, index):
        return tuple(self)[index]


class GraphFunction:
    """A Python function run as compiled graphs, one per input signature.

    ``batch_polymorphic=True``: when every tensor argument has the same leading size, the
    function is traced once with that size unknown (``None``) and the one optimized graph
    runs every batch size, with a memory plan per size built from a shape walk and cached.
    Code that needs a concrete batch size while tracing (``int(x.shape[0])``), or a graph
    that turns out not to fit another size, falls back to a trace per size as before.
    """

    def __init__(self, fn, name: str | None = None, passes=None,
                 batch_polymorphic: bool = False):
        self.fn = fn
        self.name = name or getattr(fn, "__name__", "function")
        self.passes = passes
        self.batch_polymorphic = batch_polymorphic
        self._plans: collections.OrderedDict = collections.OrderedDict()
        self._concrete_only: set = set()       # relaxed signatures that needed a concrete trace
        self.polymorphic_error = None          # why the last relaxed trace was given up
        self.trace_count = 0
        # Threads share the caches; tracing and plan building run one at a time (running
        # a plan does not hold this lock: plans have their own).
        self._lock = threading.RLock()
        self._errors = threading.local()
        functools.update_wrapper(self, fn)

    @property
    def trace_error(self):
        """The exception this thread's last trace raised (None when it succeeded)."""
        return getattr(self._errors, "error", None)

    def __call__(self, *args, **kwargs):
        backend = get_backend()
        args, kwargs = _as_inputs(self.name, args, kwargs, backend)
        tensors = _tensor_inputs(args, kwargs)
        shapes = [tuple(t.shape) for t in tensors]
        with self._lock:
            entry, batch = self._entry(args, kwargs, tensors, backend)
            try:
                plan = entry.plan(batch, shapes)
            except ShapeMismatch as error:     # the relaxed graph does not fit this batch
                self._give_up_relaxed(args, kwargs, backend, error)
                entry, batch = self._entry(args, kwargs, tensors, backend)
                plan = entry.plan(batch, shapes)
        return pack_results(entry.graph, backend, plan([t.data for t in tensors]))

    def trace(self, *args, **kwargs) -> Graph:
        """The optimized graph for these arguments (traced now if not cached)."""
        backend = get_backend()
        args, kwargs = _as_inputs(self.name, args, kwargs, backend)
        with self._lock:
            return self._entry(args, kwargs, _tensor_inputs(args, kwargs), backend)[0].graph

    def _entry(self, args, kwargs, tensors, backend):
        """(the traced graph for these arguments, the batch size it is run with)."""
        batch = batch_size_of(tensors) if self.batch_polymorphic else None
        key = _signature(args, kwargs, backend, relaxed=batch is not None)
        if batch is not None and key in self._concrete_only:
            batch, key = None, _signature(args, kwargs, backend)
        entry = self._plans.get(key)
        if entry is not None:
            self._plans.move_to_end(key)
            return entry, batch
        if batch is not None:
            try:
                entry = self._trace(args, kwargs, backend, relaxed=True)
                entry.plan(batch, [tuple(t.shape) for t in tensors])
            except Exception as error:   # needs a concrete batch size: trace at this one
                self.polymorphic_error = error
                self._concrete_only.add(key)
                batch, key = None, _signature(args, kwargs, backend)
                entry = self._plans.get(key)
                if entry is not None:
                    return entry, batch
                entry = self._trace(args, kwargs, backend)
        else:
            entry = self._trace(args, kwargs, backend)
        self._plans[key] = entry
        if len(self._plans) > MAX_TRACES:
            self._plans.popitem(last=False)
        return entry, batch

    def _give_up_relaxed(self, args, kwargs, backend, error) -> None:
        key = _signature(args, kwargs, backend, relaxed=True)
        self.polymorphic_error = error
        self._concrete_only.add(key)
        self._plans.pop(key, None)

    def _trace(self, args, kwargs, backend, relaxed: bool = False) -> _Traced:
        from . import passes as pass_registry
        self.trace_count += 1
        if self.trace_count == RETRACE_WARNING:
            warnings.warn(f"lamina.jit: {self.name} has been traced {self.trace_count} times "
                          f"(one per new input shape or dtype); keep shapes fixed to avoid "
                          f"retracing", stacklevel=3)
        symbols = []

        def symbolic(leaf):
            if isinstance(leaf, TensorBase) and not isinstance(leaf, Variable):
                shape = relax_batch(leaf.shape) if relaxed else leaf.shape
                s = SymbolicTensor(shape, leaf.dtype, name=f"input_{len(symbols)}")
                symbols.append(s)
                return s
            return leaf
        leaves = [symbolic(leaf) for leaf in tree.flatten((list(args), kwargs))]
        sym_args, sym_kwargs = tree.pack_sequence_as((list(args), kwargs), leaves)
        recorded = tracing.Trace()
        self._errors.error = None
        try:
            with tracing.tracing_into(recorded):
                outputs = self.fn(*sym_args, **sym_kwargs)
        except Exception as error:        # e.g. Python control flow on a tensor's value
            if not relaxed:
                self._errors.error = error
            raise
        graph = Graph(symbols, outputs, recorded.placeholders.values(),
                      recorded.updates.values(), name=self.name)
        graph = pass_registry.optimize(graph, self.passes)
        return _Traced(graph, backend, polymorphic=relaxed)


def jit(fn=None, *, passes=None, batch_polymorphic: bool = False):
    """Decorator: ``@lamina.jit`` compiles ``fn`` into a graph per input signature.

    ``batch_polymorphic=True`` traces once for every batch size (see GraphFunction). It is
    off by default, as ``tf.function``'s ``reduce_retracing``: an arbitrary function may
    read ``x.shape[0]`` as a Python number in ways no trace error reveals; the model steps
    (``fit``/``evaluate``/``predict``), whose code is the library's, turn it on."""
    if fn is None:
        return lambda f: GraphFunction(f, passes=passes, batch_polymorphic=batch_polymorphic)
    return GraphFunction(fn, passes=passes, batch_polymorphic=batch_polymorphic)
