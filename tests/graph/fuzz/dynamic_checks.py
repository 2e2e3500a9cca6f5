"""Eager vs graph for one unknown-size program (``dynamic.py``): standalone (numpy and
lamina), so a reproduction is the program's source and this file.

For each run (concrete input shapes of other sizes than the other run's):

1. eager: ``program`` on concrete tensors (the reference);
2. a functional model built on ``lamina.Input(batch_shape=SYMBOLIC)`` -- unknown sizes
   there -- run eagerly, and a second one, built the same way, through ``lamina.jit``;
3. with ``GRADIENT``: the gradient of ``sum(square(outputs))`` with respect to the float
   inputs, an eager tape over ``program`` against ``lamina.jit`` of a tape over the model;
4. the first run's compiled model on the second run's inputs (no seeded draws only: a
   second call draws again).

Error parity: where eager raises, every mode must raise an error of the same type (a
graph may raise a subclass, e.g. GraphExecutionError's typed twin); a mode that returns
values then, or raises where eager does not, is a finding. Models are rebuilt after
``set_random_seed(SEED)`` so each mode draws what eager draws.
"""
import numpy as np

import lamina
from lamina import ops

SEED = 1234
RTOL, ATOL = 1e-4, 1e-5


def make_inputs(shapes, dtypes, run):
    rng = np.random.default_rng(run)
    return [rng.integers(0, 5, s).astype(d) if d.startswith("int") else
            rng.random(s).astype(d) for s, d in zip(shapes, dtypes)]


def _values(out):
    return [np.asarray(t.numpy() if hasattr(t, "numpy") else t) for t in lamina.tree.flatten(out)]


def _attempt(fn):
    try:
        return fn()
    except Exception as exc:                      # noqa: BLE001 - compared below
        return exc


def _feed(arrays):
    return arrays[0] if len(arrays) == 1 else list(arrays)


def build(ns):
    """A functional model of ``program`` on inputs of unknown sizes, or the exception its
    construction raised."""
    lamina.utils.set_random_seed(SEED)
    try:
        inputs = [lamina.Input(batch_shape=s, dtype=d)
                  for s, d in zip(ns["SYMBOLIC"], ns["DTYPES"])]
        return lamina.Model(inputs, ns["program"](*inputs))
    except Exception as exc:                      # noqa: BLE001
        return exc


def _describe(exc):
    return f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"


def _public(cls):
    """The first class of ``cls``'s lineage whose name is public (an error raised eagerly
    may be a private subclass of the type a graph raises)."""
    return next(c for c in cls.__mro__ if not c.__name__.startswith("_"))


def compare(want, got, what):
    """[(what, message)] where ``got`` differs from eager's ``want`` (values or error)."""
    if isinstance(want, Exception):
        if not isinstance(got, Exception):
            return [(what, f"eager raised {_describe(want)}; this mode returned values")]
        if not isinstance(got, _public(type(want))):
            return [(what, f"eager raised {_describe(want)}; this mode {_describe(got)}")]
        return []
    if isinstance(got, Exception):
        return [(what, f"eager returned values; this mode raised {_describe(got)}")]
    if len(got) != len(want):
        return [(what, f"{len(got)} outputs, {len(want)} eagerly")]
    for i, (g, w) in enumerate(zip(got, want)):
        if g.shape != w.shape or g.dtype != w.dtype:
            return [(what, f"[{i}]: {g.dtype}{g.shape}, eagerly {w.dtype}{w.shape}")]
        if not np.allclose(g.astype(float), w.astype(float), rtol=RTOL, atol=ATOL,
                           equal_nan=True):
            err = np.abs(g.astype(float) - w.astype(float))
            return [(what, f"[{i}]: max abs diff {np.nanmax(err):.3g}")]
    return []


def _gradient(fn, tensors, dtypes):
    floats = [t for t, d in zip(tensors, dtypes) if d.startswith("float")]
    with lamina.GradientTape() as tape:
        for t in floats:
            tape.watch(t)
        outs = [o for o in lamina.tree.flatten(fn(*tensors)) if "float" in str(o.dtype)]
        loss = ops.sum(ops.stack([ops.sum(ops.square(o)) for o in outs]))
    return tape.gradient(loss, floats)


def check_dynamic(ns):
    findings, first_graph = [], None
    dtypes = ns["DTYPES"]
    for run, shapes in enumerate(ns["RUNS"]):
        arrays = make_inputs(shapes, dtypes, run)
        tensors = [ops.convert_to_tensor(a) for a in arrays]
        lamina.utils.set_random_seed(SEED)
        eager = _attempt(lambda: _values(ns["program"](*tensors)))
        model = build(ns)
        replay = model if isinstance(model, Exception) else \
            _attempt(lambda: _values(model(_feed(arrays))))
        findings += compare(eager, replay, f"run {run} {shapes}: functional model, eager")
        model = build(ns)
        graph = lamina.jit(model) if not isinstance(model, Exception) else None
        got = model if graph is None else _attempt(lambda: _values(graph(_feed(arrays))))
        findings += compare(eager, got, f"run {run} {shapes}: jit(model)")
        if run == 0:
            first_graph = graph
        elif first_graph is not None and "seed=" not in ns["SOURCE"]:
            got = _attempt(lambda: _values(first_graph(_feed(arrays))))
            findings += compare(eager, got, f"run {run} {shapes}: run 0's jit(model)")
        if ns["GRADIENT"] and not isinstance(eager, Exception) and graph is not None:
            lamina.utils.set_random_seed(SEED)
            want = _attempt(lambda: _values(_gradient(ns["program"], tensors, dtypes)))
            twin = build(ns)

            def through_model(*xs):
                return _gradient(lambda *a: twin(_feed(list(a))), list(xs), dtypes)
            got = _attempt(lambda: _values(lamina.jit(through_model)(*tensors)))
            findings += compare(want, got, f"run {run} {shapes}: gradient, jit vs eager")
        if findings:
            return findings
    return findings


def run_source(source):
    ns = {"__name__": "fuzz_dynamic", "SOURCE": source}
    exec(compile(source, "<unknown-size program>", "exec"), ns)
    return check_dynamic(ns)
