"""``lamina.jit``: compile a function of tensors and variables into a graph, once per input
signature, and run the optimized plan afterwards (like ``tf.function`` / ``jax.jit``)."""
from __future__ import annotations

import collections
import functools
import gc
import threading
import warnings
from typing import NamedTuple

from .. import tree
from ..core.tensor import TensorBase
from ..core.variable import Variable
from ..backend import get_backend
from ..core.symbolic import SymbolicTensor
from ..ops import core as ops_core
from . import passes as pass_registry, trace as tracing
from .executor import Plan, pack_results
from .ir import Graph
from .shapes import ShapeMismatch, batch_size_of, concrete_shapes, relax_batch

MAX_TRACES = 32            # LRU bound of the cache of traced signatures
MAX_PLANS = 64             # LRU bound of the plans (one per batch size) of a relaxed graph
RETRACE_WARNING = 8        # warn when one function has traced this many signatures


def _is_host_array(leaf, backend) -> bool:
    """numpy/cupy arrays and numpy scalars: ``tf.function`` treats them as tensors."""
    if isinstance(leaf, TensorBase) or not hasattr(leaf, "shape") or \
            not hasattr(leaf, "dtype"):
        return False
    return backend.is_array(leaf) or type(leaf).__module__.split(".")[0] in ("numpy", "cupy")


class _Call(NamedTuple):
    """One call's arguments, flattened once, host arrays made tensors."""
    args: tuple
    kwargs: dict
    leaves: list                # tree.flatten((args, kwargs))
    tensors: list               # the leaves fed to the graph (Variables are read by it)
    structure: tuple            # how args and kwargs nest


def _arguments(name: str, args, kwargs, backend) -> _Call:
    """``args``/``kwargs`` with host arrays made Tensors (graph inputs keyed by shape and
    dtype, never by value), checking that every other leaf is hashable (a static value)."""
    leaves: list = []
    structure = (_walk(args, leaves), _walk(kwargs, leaves))     # tree.flatten's order
    converted = False
    for k, leaf in enumerate(leaves):
        if isinstance(leaf, TensorBase):
            continue
        if _is_host_array(leaf, backend):
            leaves[k] = ops_core.convert_to_tensor(leaf)
            converted = True
            continue
        try:
            hash(leaf)
        except TypeError:
            raise TypeError(
                f"lamina.jit: {name}: argument {_where(args, kwargs, leaf)} must be a tensor, "
                f"an array, a structure (list, tuple, dict) of them or a hashable static "
                f"value; received an unhashable {type(leaf).__name__}") from None
    if converted:
        args, kwargs = tree.pack_sequence_as((args, kwargs), leaves)
    tensors = [leaf for leaf in leaves
               if isinstance(leaf, TensorBase) and not isinstance(leaf, Variable)]
    return _Call(args, kwargs, leaves, tensors, structure)


def _where(args, kwargs, leaf) -> str:
    """How an error names the argument that holds ``leaf``."""
    for k, value in enumerate(args):
        if any(x is leaf for x in tree.flatten(value)):
            return f"{k} (positional)"
    for key, value in kwargs.items():
        if any(x is leaf for x in tree.flatten(value)):
            return f"'{key}'"
    return "?"


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


def _signature(call: _Call, backend, relaxed: bool = False) -> tuple:
    """Tensors are keyed by shape and dtype (``relaxed``: without the batch size);
    Variables by identity; static values by type and value (hash/eq)."""
    parts = []
    for leaf in call.leaves:
        if isinstance(leaf, Variable):
            parts.append(("variable", _VariableKey(leaf)))
        elif isinstance(leaf, TensorBase):
            shape = relax_batch(leaf.shape) if relaxed else tuple(leaf.shape)
            parts.append(("tensor", shape, leaf.dtype))
        else:
            parts.append(("static", type(leaf), leaf))
    return (backend.name, tuple(parts), call.structure)


def _walk(value, leaves: list):
    """Append ``value``'s leaves to ``leaves`` (in ``tree.flatten``'s order) and return how
    it nests, as a hashable key: one walk per call gives both."""
    if isinstance(value, dict):
        return tuple((k, _walk(value[k], leaves)) for k in sorted(value))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_walk(v, leaves) for v in value))
    leaves.append(value)
    return None


class _GarbageCollectionPaused:
    """Python's cyclic garbage collector off while a trace, its passes and a plan build a
    graph (Mercurial's ``nogc`` idea). They allocate hundreds of thousands of objects that
    mostly stay alive (a 3000-layer model's training step: ~40,000 nodes, their tensors,
    specs and plan steps), and the collections they trigger walk all of them again and
    again: a quarter of the time of that model's first training step. Nested uses and a
    collector the user switched off are left as they are; the first collection after the
    trace frees whatever cycles it dropped."""

    def __enter__(self):
        self._was_enabled = gc.isenabled()
        gc.disable()
        return self

    def __exit__(self, *exc_info):
        if self._was_enabled:
            gc.enable()
        return False


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
            with _GarbageCollectionPaused():
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
        call = _arguments(self.name, args, kwargs, backend)
        graph, plan = self._graph_and_plan(call, backend)
        return pack_results(graph, backend, plan([t.data for t in call.tensors]))

    def bind(self, *args, **kwargs) -> tuple:
        """(graph, plan, the tensors fed to the plan) for these arguments, traced and
        planned now if not cached, without running: a caller that has checked that later
        arguments share this signature may run ``plan`` on their arrays directly."""
        backend = get_backend()
        call = _arguments(self.name, args, kwargs, backend)
        graph, plan = self._graph_and_plan(call, backend)
        return graph, plan, call.tensors

    def _graph_and_plan(self, call: _Call, backend) -> tuple:
        shapes = [tuple(t.shape) for t in call.tensors]
        with self._lock:
            entry, batch = self._entry(call, backend)
            try:
                plan = entry.plan(batch, shapes)
            except ShapeMismatch as error:     # the relaxed graph does not fit this batch
                self._give_up_relaxed(call, backend, error)
                entry, batch = self._entry(call, backend)
                plan = entry.plan(batch, shapes)
        return entry.graph, plan

    def trace(self, *args, **kwargs) -> Graph:
        """The optimized graph for these arguments (traced now if not cached)."""
        backend = get_backend()
        call = _arguments(self.name, args, kwargs, backend)
        with self._lock:
            return self._entry(call, backend)[0].graph

    def _entry(self, call: _Call, backend):
        """(the traced graph for these arguments, the batch size it is run with)."""
        batch = batch_size_of(call.tensors) if self.batch_polymorphic else None
        key = _signature(call, backend, relaxed=batch is not None)
        if batch is not None and key in self._concrete_only:
            batch, key = None, _signature(call, backend)
        entry = self._plans.get(key)
        if entry is not None:
            self._plans.move_to_end(key)
            return entry, batch
        if batch is not None:
            try:
                entry = self._trace(call, backend, relaxed=True)
                entry.plan(batch, [tuple(t.shape) for t in call.tensors])
            except Exception as error:   # needs a concrete batch size: trace at this one
                self.polymorphic_error = error
                self._concrete_only.add(key)
                batch, key = None, _signature(call, backend)
                entry = self._plans.get(key)
                if entry is not None:
                    return entry, batch
                entry = self._trace(call, backend)
        else:
            entry = self._trace(call, backend)
        self._plans[key] = entry
        if len(self._plans) > MAX_TRACES:
            self._plans.popitem(last=False)
        return entry, batch

    def _give_up_relaxed(self, call: _Call, backend, error) -> None:
        key = _signature(call, backend, relaxed=True)
        self.polymorphic_error = error
        self._concrete_only.add(key)
        self._plans.pop(key, None)

    def _trace(self, call: _Call, backend, relaxed: bool = False) -> _Traced:
        args, kwargs = call.args, call.kwargs
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
        with _GarbageCollectionPaused():    # tracing allocates a lot: see the class
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
