"""Control flow (cond, switch, while_loop, fori_loop, scan, map, vectorized_map,
associative_scan, vectorize, custom_gradient) through the op harness: forward against numpy
loops, numeric gradients, and lamina.jit (one loop or select node) equal to eager."""
import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.ops.control_flow import traced_while
from tests.harness import case, rand, run_case


def _np_scan(f, carry, xs, reverse=False):
    ys = [None] * len(xs)
    for t in (range(len(xs) - 1, -1, -1) if reverse else range(len(xs))):
        carry, ys[t] = f(carry, xs[t])
    return carry, np.stack(ys)


def _step(c, x):
    return ops.tanh(c * x + 0.3), c * x


def _np_step(c, x):
    return np.tanh(c * x + 0.3), c * x


def _scan(reverse):
    return lambda xs, c0: list(ops.scan(_step, c0, xs, reverse=reverse))


def _np_scan_ref(reverse):
    return lambda xs, c0: list(_np_scan(_np_step, c0, xs, reverse))


def _nested_scan(w):
    def f(carry, _):
        a, b = carry["a"], carry["b"]
        return {"a": ops.sin(a) * w, "b": b + a}, (a * b, None)
    (c, (y, none)) = ops.scan(f, {"a": w, "b": w * 0.5}, length=4)
    assert none is None
    return [c["a"], c["b"], y]


def _np_nested_scan(w):
    a, b, ys = w, w * 0.5, []
    for _ in range(4):
        ys.append(a * b)
        a, b = np.sin(a) * w, b + a
    return [a, b, np.stack(ys)]


def _fori(x):
    return ops.fori_loop(0, 4, lambda i, v: ops.sin(v) * 1.5 + ops.cast(i, v.dtype), x)


def _np_fori(x):
    for i in range(4):
        x = np.sin(x) * 1.5 + i
    return x


def _while(maximum_iterations):
    def fn(x, w):
        a, n = ops.while_loop(lambda a, n: ops.sum(a) < 5.0, lambda a, n: (a * w + 0.2, n + 1),
                              (x, 0), maximum_iterations=maximum_iterations)
        return [a, n]
    return fn


def _np_while(maximum_iterations):
    def ref(x, w):
        n = 0
        while np.sum(x) < 5.0 and (maximum_iterations is None or n < maximum_iterations):
            x, n = x * w + 0.2, n + 1
        return [x, np.asarray(n, "int32")]
    return ref


def _while_node(x, w):
    return traced_while(lambda a, v: ops.sum(a) < 5.0, lambda a, v: (a * v + 0.2, v), (x, w))


def _while_node_grad(x, w):
    with lamina.GradientTape() as tape:
        tape.watch([x, w])
        a, _ = _while_node(x, w)
        y = ops.sum(a * a)
    return list(tape.gradient(y, [x, w]))


def _np_while_node_grad(x, w):
    values = [x]
    while np.sum(values[-1]) < 5.0:
        values.append(values[-1] * w + 0.2)
    d, dw = 2 * values[-1], np.zeros_like(w)
    for a in reversed(values[:-1]):
        dw, d = dw + d * a, d * w
    return [d, dw]


def _cond(x):
    return ops.cond(ops.sum(x) > 0, lambda: ops.sin(x) * 2.0, lambda: x * x)


def _np_cond(x):
    return np.sin(x) * 2.0 if np.sum(x) > 0 else x * x


BRANCHES = [lambda a: a + 1.0, lambda a: ops.exp(a) * 3.0, lambda a: -a * a]
NP_BRANCHES = [lambda a: a + 1.0, lambda a: np.exp(a) * 3.0, lambda a: -a * a]


def _affine(p, q):
    return (p[0] * q[0], p[1] * q[0] + q[1])


def _np_prefix(m, b, axis, reverse):
    m, b = np.moveaxis(m, axis, 0), np.moveaxis(b, axis, 0)
    order = range(len(m) - 1, -1, -1) if reverse else range(len(m))
    out_m, out_b, acc = np.empty_like(m), np.empty_like(b), None
    for t in order:
        acc = (m[t], b[t]) if acc is None else (acc[0] * m[t], acc[1] * m[t] + b[t])
        out_m[t], out_b[t] = acc
    return [np.moveaxis(out_m, 0, axis), np.moveaxis(out_b, 0, axis)]


@ops.custom_gradient
def _log1pexp(x):
    e = ops.exp(x)

    def grad(*args, upstream=None):
        if upstream is None:
            (upstream,) = args
        return ops.multiply(upstream, 1.0 - 1.0 / ops.add(1.0, e))
    return ops.log(1.0 + e), grad


@ops.custom_gradient
def _scaled_product(x, y):
    def grad(*args, upstream):                      # torch-style keyword-only upstream
        return upstream * y, upstream * x
    return x * y, grad


XS, C0 = rand(5, 3), rand(3)
POSITIVE, NEGATIVE = rand(4, low=0.2, high=0.6), rand(4, low=-0.6, high=-0.2)
GROW = rand(3, low=0.1, high=0.4)
WEIGHT = rand(3, low=1.2, high=1.5)

CASES = [
    case("scan", _scan(False), _np_scan_ref(False), [XS, C0]),
    case("scan", _scan(True), _np_scan_ref(True), [XS, C0], label="reverse"),
    case("scan", _nested_scan, _np_nested_scan, [rand(2)], label="nested_length"),
    case("map", lambda x: ops.map(lambda r: ops.sum(r * r) * r, x),
         lambda x: np.stack([np.sum(r * r) * r for r in x]), [rand(4, 3)]),
    case("vectorized_map", lambda x, y: ops.vectorized_map(lambda e: e[0] * ops.sum(e[1]),
                                                           (x, y)),
         lambda x, y: np.stack([a * np.sum(b) for a, b in zip(x, y)]), [rand(3, 2),
                                                                        rand(3, 4)]),
    case("fori_loop", _fori, _np_fori, [rand(3)]),
    case("while_loop", _while(None), _np_while(None), [GROW, WEIGHT]),
    case("while_loop", _while(3), _np_while(3), [GROW, WEIGHT], label="maximum_iterations"),
    case("while", _while_node, lambda x, w: [_np_while(None)(x, w)[0], w], [GROW, WEIGHT]),
    case("while_grad", _while_node_grad, _np_while_node_grad, [GROW, WEIGHT], grad=False),
    case("cond", _cond, _np_cond, [POSITIVE], label="true"),
    case("cond", _cond, _np_cond, [NEGATIVE], label="false"),
    *[case("switch", lambda i, x: ops.switch(i, BRANCHES, x),
           lambda i, x: NP_BRANCHES[int(np.clip(i, 0, 2))](x),
           [np.asarray(i, "int32"), rand(3)], label=f"index_{i}") for i in (-4, 1, 9)],
    case("associative_scan", lambda m, b: list(ops.associative_scan(_affine, (m, b), axis=1)),
         lambda m, b: _np_prefix(m, b, 1, False), [rand(2, 7), rand(2, 7)]),
    case("associative_scan", lambda m, b: list(ops.associative_scan(_affine, (m, b),
                                                                    reverse=True)),
         lambda m, b: _np_prefix(m, b, 0, True), [rand(6, 2), rand(6, 2)], label="reverse"),
    case("vectorize", lambda a, b: ops.vectorize(lambda u, v: ops.sum(u * v),
                                                 signature="(n),(n)->()")(a, b),
         lambda a, b: np.sum(a * b, axis=-1), [rand(2, 3, 4), rand(4)]),
    case("vectorize", lambda a, b: ops.vectorize(lambda u, v: u * ops.exp(v))(a, b),
         lambda a, b: a * np.exp(b), [rand(2, 3), rand(3)], label="elementwise"),
    case("custom_gradient", _log1pexp, lambda x: np.log1p(np.exp(x)), [rand(5)]),
    case("custom_gradient", _scaled_product, lambda x, y: x * y, [rand(4), rand(4)],
         label="keyword_upstream"),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)
