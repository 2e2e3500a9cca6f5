"""Control flow against Keras 3.15.1's own numbers (JAX backend, float64; computed once in a
throwaway environment and checked in as literals), eagerly and under lamina.jit."""
import numpy as np
import pytest

import lamina
from lamina import ops

XS = np.array([0.1, -0.4, 0.7, 0.2, -0.3])
X2 = np.array([[0.1, 0.2], [0.3, -0.1], [-0.5, 0.4]])


def _t(x):
    return ops.convert_to_tensor(np.asarray(x, dtype="float64"))


def _both(fn, *args):
    """``fn`` eagerly and compiled: the two results, as numpy (nested)."""
    def host(r):
        if isinstance(r, dict):
            return {k: host(v) for k, v in r.items()}
        if isinstance(r, (list, tuple)):
            return type(r)(host(v) for v in r)
        return None if r is None else np.asarray(r.numpy())
    return host(fn(*args)), host(lamina.jit(fn)(*args))


def _scan(xs):
    return ops.scan(lambda c, x: (c * 0.5 + x, c * x), xs[0] * 0 + 0.3, xs)


def _scan_reverse(xs):
    return ops.scan(lambda c, x: (c * 0.5 + x, c * x), xs[0] * 0 + 0.3, xs, reverse=True)


def _scan_nested(x2):
    def f(c, x):
        return {"h": c["h"] * x[0] + x[1], "n": c["n"] + 1}, (c["h"] * 2, None)
    return ops.scan(f, {"h": x2[0, 0] * 0 + 0.5, "n": ops.convert_to_tensor(0, "int32")}, x2)


@pytest.mark.parametrize("mode", [0, 1], ids=["eager", "graph"])
def test_scan_matches_keras(mode):
    c, y = _both(_scan, _t(XS))[mode]
    np.testing.assert_allclose(c, -0.05937499999999998, rtol=1e-14)
    np.testing.assert_allclose(y, [0.03, -0.1, -0.1925, 0.1125, -0.144375], rtol=1e-14)
    c, y = _both(_scan_reverse, _t(XS))[mode]
    np.testing.assert_allclose(c, 0.09062499999999998, rtol=1e-14)
    np.testing.assert_allclose(y, [-0.001875, -0.305, 0.0875, -0.03, -0.09], rtol=1e-13)
    c, (y, none) = _both(_scan_nested, _t(X2))[mode]
    assert none is None and c["n"] == 3 and c["n"].dtype == np.int32
    np.testing.assert_allclose(c["h"], 0.41250000000000003, rtol=1e-14)
    np.testing.assert_allclose(y, [1.0, 0.5, -0.05000000000000002], rtol=1e-14)


@pytest.mark.parametrize("mode", [0, 1], ids=["eager", "graph"])
def test_loops_match_keras(mode):
    c, y = _both(lambda a: ops.scan(lambda c, _: (c + 1.0, c * c), a, length=3),
                 _t(0.5))[mode]
    np.testing.assert_allclose(c, 3.5)
    np.testing.assert_allclose(y, [0.25, 2.25, 6.25])
    fori = _both(lambda v: ops.fori_loop(0, 4, lambda i, v: v * 1.5 + ops.cast(i, v.dtype),
                                         v), _t([0.2, -0.1]))[mode]
    np.testing.assert_allclose(fori, [9.262500000000001, 7.7437499999999995], rtol=1e-14)

    def body(a, n):
        return a * 1.3 + 1, n + 1
    a, n = _both(lambda v: ops.while_loop(lambda a, n: ops.sum(a) < 10, body, (v, 0)),
                 _t([0.5, 1.5]))[mode]
    np.testing.assert_allclose(a, [5.0885, 7.2855], rtol=1e-14)
    assert n == 3
    a, n = _both(lambda v: ops.while_loop(lambda a, n: ops.sum(a) < 10, body, (v, 0),
                                          maximum_iterations=2), _t([0.5, 1.5]))[mode]
    np.testing.assert_allclose(a, [3.145, 4.835], rtol=1e-14)
    assert n == 2
    single = _both(lambda v: ops.while_loop(lambda a: a < 10, lambda a: a * 2, v),
                   _t(1.5))[mode]
    np.testing.assert_allclose(single, 12.0)
    mapped = _both(lambda x: ops.map(lambda r: ops.sum(r * r), x), _t(X2))[mode]
    np.testing.assert_allclose(mapped, [0.05, 0.1, 0.41], rtol=1e-14)
    vmapped = _both(lambda x: ops.vectorized_map(lambda r: r * ops.sum(r), x), _t(X2))[mode]
    np.testing.assert_allclose(vmapped, [[0.03, 0.06], [0.06, -0.02], [0.05, -0.04]],
                               rtol=1e-13)


def test_while_loop_returns_a_tuple_for_list_loop_vars_as_keras_does():
    out = ops.while_loop(lambda a, b: a < 3, lambda a, b: (a + 1, b), [0, 1])
    assert isinstance(out, tuple) and int(out[0].numpy()) == 3 and int(out[1].numpy()) == 1


@pytest.mark.parametrize("mode", [0, 1], ids=["eager", "graph"])
def test_branches_match_keras(mode):
    branches = [lambda a: a + 1, lambda a: a * 3, lambda a: -a]
    for index, expected in [(-2, [2.0, 3.0]), (1, [3.0, 6.0]), (7, [-1.0, -2.0])]:
        got = _both(lambda i, a: ops.switch(i, branches, a),
                    ops.convert_to_tensor(index, "int32"), _t([1.0, 2.0]))[mode]
        np.testing.assert_array_equal(got, expected)
    got = _both(lambda p: ops.cond(p, lambda: p * 0 + 1.5, lambda: p * 0 + 2.5),
                ops.convert_to_tensor(True))[mode]
    assert got == 1.5


@pytest.mark.parametrize("mode", [0, 1], ids=["eager", "graph"])
def test_associative_scan_matches_keras_grouping(mode):
    # f is not associative: the numbers pin JAX's grouping (Keras's JAX backend).
    def f(a, b):
        return a * 2 + b
    forward, backward = _both(lambda x: (ops.associative_scan(f, x),
                                         ops.associative_scan(f, x, reverse=True)),
                              _t(np.arange(1.0, 8.0)))[mode]
    np.testing.assert_array_equal(forward, [1, 4, 11, 18, 41, 52, 111])
    np.testing.assert_array_equal(backward, [233, 116, 111, 54, 45, 20, 7])

    def affine(a, b):
        return (a[0] * b[0], a[1] * b[0] + b[1])
    m = _t([[0.9, 1.1], [0.5, 0.8], [1.2, 0.7]])
    b = _t([[0.1, -0.2], [0.3, 0.05], [-0.1, 0.2]])
    pm, pb = _both(lambda m, b: ops.associative_scan(affine, (m, b), axis=1), m, b)[mode]
    np.testing.assert_allclose(pm, [[0.9, 0.99], [0.5, 0.4], [1.2, 0.84]], rtol=1e-14)
    np.testing.assert_allclose(pb, [[0.1, -0.09], [0.3, 0.29], [-0.1, 0.13]], rtol=1e-13)


def test_vectorize_and_custom_gradient_match_keras():
    got = ops.vectorize(lambda a, b: ops.sum(a * b), signature="(n),(n)->()")(
        np.arange(6.0).reshape(2, 3), np.array([1.0, -1.0, 0.5]))
    np.testing.assert_array_equal(got.numpy(), [0.0, 1.5])

    @ops.custom_gradient
    def log1pexp(x):
        e = ops.exp(x)

        def grad(upstream):
            return ops.multiply(upstream, 1.0 - 1.0 / ops.add(1, e))
        return ops.log(1 + e), grad

    def gradient(x):
        with lamina.GradientTape() as tape:
            tape.watch(x)
            y = ops.sum(log1pexp(x))
        return tape.gradient(y, x)
    x = _t([0.0, 100.0, -2.0])
    for g in (gradient(x), lamina.jit(gradient)(x)):
        # 1.0 at x=100, where differentiating log(1 + exp(x)) gives inf/inf = nan.
        np.testing.assert_allclose(g.numpy(), [0.5, 1.0, 0.11920292202211769], rtol=1e-14)
