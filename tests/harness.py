"""The op test harness: forward against numpy, gradients against float64 central differences.

An op test file declares ``CASES = [case(...), ...]`` and runs them with ``run_case``::

    CASES = [case("add", lambda a, b: ops.add(a, b), np.add, [rand(3, 4), rand(4)])]

    @pytest.mark.parametrize("c", CASES, ids=str)
    def test_forward_and_gradient(c, backend):
        run_case(c)

``tests/ops/test_registry.py`` collects every test module's CASES and fails if a
registered op or a public function of ``lamina.ops`` has no case (differentiable ones
need a gradient case). The harness also checks that a case's function really ran the op it
claims to cover, so a declaration cannot drift from the code.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Sequence

import numpy as np

import lamina
from lamina import ops
from lamina.autograd import eager

_rng = np.random.default_rng(1234)


def rand(*shape, low=-1.0, high=1.0, dtype="float64"):
    """Uniform test data (float64: the harness casts to float32 for the float32 checks)."""
    return _rng.uniform(low, high, size=shape).astype(dtype)


def rand_away_from(*shape, points=(0.0,), margin=0.1, low=-1.0, high=1.0):
    """Uniform data that keeps ``margin`` away from kinks (relu at 0, abs at 0, ...)."""
    x = rand(*shape, low=low, high=high)
    for p in points:
        near = np.abs(x - p) < margin
        x[near] = p + np.where(x[near] >= p, margin, -margin) * 1.5
    return x


def distinct(*shape, low=-1.0, high=1.0):
    """Data whose values are all well apart (for max/min/sort-like ops: no ties)."""
    n = int(np.prod(shape)) if shape else 1
    values = np.linspace(low, high, n)
    return _rng.permutation(values).reshape(shape)


@dataclasses.dataclass
class Case:
    op: str                                   # the registered op or public function covered
    fn: Callable                              # tensors -> tensor(s), written with lamina.ops
    ref: Callable | None                      # numpy arrays -> array(s); None: skip forward
    inputs: Sequence                          # numpy arrays (float64 for float inputs)
    grad: bool = True                         # check gradients w.r.t. float inputs
    second_order: bool = False                # also check the gradient of the gradient
    grad_argnums: tuple | None = None         # which inputs to differentiate (default: floats)
    graph: bool = True                        # also run forward and gradient under lamina.jit
    rtol: float = 1e-6
    atol: float = 1e-8
    fwd_rtol32: float = 1e-5
    fwd_atol32: float = 1e-6
    float32: bool = True                      # also run the forward in float32
    eps: float = 1e-6
    label: str = ""

    def __str__(self) -> str:
        return f"{self.op}{'-' + self.label if self.label else ''}"


def case(op, fn, ref, inputs, **kw) -> Case:
    return Case(op, fn, ref, list(inputs), **kw)


def _is_float(a) -> bool:
    return np.asarray(a).dtype.kind == "f"


def _to_tensors(arrays, float_dtype):
    out = []
    for a in arrays:
        a = np.asarray(a)
        dtype = float_dtype if a.dtype.kind == "f" else a.dtype.name
        out.append(ops.convert_to_tensor(a, dtype=dtype))
    return out


def _as_list(y):
    return list(y) if isinstance(y, (tuple, list)) else [y]


def run_case(c: Case) -> None:
    """Forward (float64 and float32) against the reference, then the gradient checks."""
    seen: set[str] = set()
    eager.op_observer = seen.add
    try:
        check_forward(c)
    finally:
        eager.op_observer = None
    public = getattr(ops, c.op, None)
    if c.op in ops.OP_REGISTRY:
        assert c.op in seen, f"case {c}: the function never ran op {c.op!r} (ran {sorted(seen)})"
    else:
        assert callable(public), f"case {c}: {c.op!r} is neither a registered op nor in lamina.ops"
    if c.grad:
        check_gradient(c)
        if c.second_order:
            check_second_order(c)
    if c.graph:
        check_graph(c)


def check_forward(c: Case) -> None:
    out64 = _as_list(c.fn(*_to_tensors(c.inputs, "float64")))
    if c.ref is None:
        return
    ref = _as_list(c.ref(*[np.asarray(a) for a in c.inputs]))
    assert len(out64) == len(ref), f"{c}: {len(out64)} outputs, reference has {len(ref)}"
    for o, r in zip(out64, ref):
        r = np.asarray(r)
        assert o.shape == r.shape, f"{c}: shape {o.shape}, reference {r.shape}"
        np.testing.assert_allclose(o.numpy(), r, rtol=1e-10, atol=1e-12, err_msg=f"{c} float64")
    if c.float32:
        out32 = _as_list(c.fn(*_to_tensors(c.inputs, "float32")))
        for o, r in zip(out32, ref):
            r = np.asarray(r)
            if r.dtype.kind == "f":
                assert o.dtype == "float32", f"{c}: float32 inputs gave dtype {o.dtype}"
            np.testing.assert_allclose(o.numpy(), r, rtol=c.fwd_rtol32, atol=c.fwd_atol32,
                                       err_msg=f"{c} float32")


def _argnums(c: Case):
    if c.grad_argnums is not None:
        return c.grad_argnums
    return tuple(i for i, a in enumerate(c.inputs) if _is_float(a))


def _scalarize(c: Case, outs, cotangents):
    total = None
    for o, v in zip(outs, cotangents):
        term = ops.sum(ops.multiply(o, v))
        total = term if total is None else ops.add(total, term)
    return total


def _cotangents(c: Case):
    outs = _as_list(c.fn(*_to_tensors(c.inputs, "float64")))
    rng = np.random.default_rng(7)
    return [ops.convert_to_tensor(rng.uniform(0.5, 1.5, size=o.shape), dtype="float64")
            for o in outs]


def _analytic(c: Case, arrays, cotangents):
    tensors = _to_tensors(arrays, "float64")
    argnums = _argnums(c)
    with lamina.GradientTape() as tape:
        for i in argnums:
            tape.watch(tensors[i])
        y = _scalarize(c, _as_list(c.fn(*tensors)), cotangents)
    grads = tape.gradient(y, [tensors[i] for i in argnums])
    return [np.zeros(np.shape(arrays[i])) if g is None else g.numpy()
            for i, g in zip(argnums, grads)]


def _numeric(c: Case, f, arrays):
    """Central differences of the scalar function ``f(arrays)`` w.r.t. each argnum."""
    grads = []
    for i in _argnums(c):
        base = np.array(arrays[i], dtype=np.float64, order="C")   # reshape(-1) is a view
        g = np.zeros_like(base)
        flat, gflat = base.reshape(-1), g.reshape(-1)
        for k in range(flat.size):
            old = flat[k]
            flat[k] = old + c.eps
            up = f([base if j == i else a for j, a in enumerate(arrays)])
            flat[k] = old - c.eps
            down = f([base if j == i else a for j, a in enumerate(arrays)])
            flat[k] = old
            gflat[k] = (up - down) / (2 * c.eps)
        grads.append(g)
    return grads


def check_gradient(c: Case) -> None:
    cot = _cotangents(c)
    analytic = _analytic(c, c.inputs, cot)

    def f(arrays):
        return float(_scalarize(c, _as_list(c.fn(*_to_tensors(arrays, "float64"))), cot).numpy())
    numeric = _numeric(c, f, c.inputs)
    for i, (a, n) in zip(_argnums(c), zip(analytic, numeric)):
        np.testing.assert_allclose(a, n, rtol=c.rtol, atol=c.atol,
                                   err_msg=f"{c}: gradient of input {i}")


def check_second_order(c: Case) -> None:
    """d/dx <grad f(x), w> by nested tapes against central differences of the gradient."""
    cot = _cotangents(c)
    argnums = _argnums(c)
    rng = np.random.default_rng(11)
    ws = [rng.uniform(0.5, 1.5, size=np.shape(c.inputs[i])) for i in argnums]

    def inner(arrays):
        return sum(float(np.sum(g * w)) for g, w in zip(_analytic(c, arrays, cot), ws))

    tensors = _to_tensors(c.inputs, "float64")
    with lamina.GradientTape() as outer:
        for i in argnums:
            outer.watch(tensors[i])
        with lamina.GradientTape() as tape:
            for i in argnums:
                tape.watch(tensors[i])
            y = _scalarize(c, _as_list(c.fn(*tensors)), cot)
        grads = tape.gradient(y, [tensors[i] for i in argnums])
        z = None
        for g, w in zip(grads, ws):
            if g is None:
                continue
            term = ops.sum(ops.multiply(g, ops.convert_to_tensor(w, dtype="float64")))
            z = term if z is None else ops.add(z, term)
    assert z is not None, f"{c}: no first-order gradient to differentiate again"
    second = outer.gradient(z, [tensors[i] for i in argnums])
    numeric = _numeric(c, inner, c.inputs)
    for i, s, n in zip(argnums, second, numeric):
        s = np.zeros(np.shape(c.inputs[i])) if s is None else s.numpy()
        np.testing.assert_allclose(s, n, rtol=max(c.rtol, 1e-5), atol=max(c.atol, 1e-7),
                                   err_msg=f"{c}: second derivative of input {i}")


def _graph_compare(c: Case, what, eager_outs, graph_outs):
    assert len(eager_outs) == len(graph_outs), f"{c}: graph gave {len(graph_outs)} {what}"
    for k, (e, g) in enumerate(zip(eager_outs, graph_outs)):
        e = None if e is None else np.asarray(e.numpy() if hasattr(e, "numpy") else e)
        g = None if g is None else np.asarray(g.numpy() if hasattr(g, "numpy") else g)
        assert (e is None) == (g is None), f"{c}: {what} {k} is None in one mode only"
        if e is None:
            continue
        assert e.shape == g.shape and e.dtype == g.dtype, (
            f"{c}: {what} {k}: eager {e.shape} {e.dtype}, graph {g.shape} {g.dtype}")
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-14,
                                   err_msg=f"{c}: {what} {k}, graph against eager")


def check_graph(c: Case) -> None:
    """Graph mode (``lamina.jit``) computes what eager computes: outputs and gradients."""
    tensors = _to_tensors(c.inputs, "float64")
    _graph_compare(c, "output", _as_list(c.fn(*tensors)),
                   _as_list(lamina.jit(c.fn)(*tensors)))
    if not c.grad:
        return
    cot = _cotangents(c)
    argnums = _argnums(c)

    def grads(*xs):
        with lamina.GradientTape() as tape:
            for i in argnums:
                tape.watch(xs[i])
            y = _scalarize(c, _as_list(c.fn(*xs)), cot)
        return tuple(tape.gradient(y, [xs[i] for i in argnums]))
    _graph_compare(c, "gradient", list(grads(*tensors)), list(lamina.jit(grads)(*tensors)))
