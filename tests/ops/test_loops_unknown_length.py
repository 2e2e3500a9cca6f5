"""scan, map, vectorized_map and associative_scan over an axis of unknown length (a
symbolic batch or time axis): Keras builds them (its symbolic shapes keep the None), and
in Lamina they run as one loop node whose trip count is read when the graph runs."""
import operator

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.errors import ShapeError
from lamina.graph import SymbolicTensor

X = np.random.default_rng(0).uniform(-1, 1, (4, 6, 3)).astype("float32")


def test_symbolic_shapes_keep_the_unknown_length():
    xs = SymbolicTensor((None, 5))
    assert ops.map(lambda x: x ** 2, xs).shape == (None, 5)
    ys = ops.vectorized_map(lambda x: {"a": x ** 2, "b": x * 10}, xs)
    assert ys["a"].shape == ys["b"].shape == (None, 5)
    assert ops.map(lambda x: x[0] + x[1], (xs, SymbolicTensor((None, 5)))).shape == (None, 5)
    carry, ys = ops.scan(lambda c, x: (c + x, c), SymbolicTensor((5,)), xs)
    assert carry.shape == (5,) and ys.shape == (None, 5)
    assert ops.associative_scan(operator.add, SymbolicTensor((None, 6))).shape == (None, 6)
    pair = (SymbolicTensor((5, None)), SymbolicTensor((5, None)))
    out = ops.associative_scan(lambda a, b: (a[0] + b[0], a[1] + b[1]), pair, axis=1)
    assert out[0].shape == out[1].shape == (5, None)


def test_mismatched_known_lengths_are_still_refused():
    with pytest.raises(ShapeError, match=r"associative_scan: every leaf of 'elems' must have "
                                         r"the same first dimension along the scan axis 1; "
                                         r"received shapes \(None, 5\), \(None, 4\)"):
        ops.associative_scan(lambda a, b: (a[0] + b[0], a[1] + b[1]),
                             (SymbolicTensor((None, 5)), SymbolicTensor((None, 4))), axis=1)
    with pytest.raises(ShapeError, match=r"scan: unroll=True needs a known number of steps"):
        ops.scan(lambda c, x: (c, x), SymbolicTensor((5,)), SymbolicTensor((None, 5)),
                 unroll=True)


def _model(fn):
    inp = lamina.Input((None, 3))
    return lamina.Model(inp, lamina.layers.Lambda(fn)(inp))


def _time_scan(x):
    xt = ops.moveaxis(x, 1, 0)                      # (time, batch, 3), time unknown
    c, ys = ops.scan(lambda c, e: (c * 0.5 + e, c * e), ops.zeros_like(xt[0]), xt)
    return ops.moveaxis(ys, 0, 1) + c[:, None, :]


def _reference_time_scan(x):
    c, ys = np.zeros_like(x[:, 0]), []
    for t in range(x.shape[1]):
        ys.append(c * x[:, t])
        c = c * 0.5 + x[:, t]
    return np.stack(ys, 1) + c[:, None, :]


@pytest.mark.parametrize("length", [6, 2])
def test_graph_runs_the_loop_for_the_length_it_is_given(length):
    x = X[:, :length]
    model = _model(_time_scan)
    graph = model.predict(x, verbose=0)
    np.testing.assert_allclose(graph, _reference_time_scan(x), rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(graph, _time_scan(ops.convert_to_tensor(x)).numpy())


def test_map_over_the_batch_and_associative_scan_over_time():
    batch = lamina.Input((3,))
    doubled = lamina.Model(batch, ops.vectorized_map(lambda v: v + v, batch))
    np.testing.assert_array_equal(doubled.predict(X[:, 0], verbose=0), 2 * X[:, 0])
    model = _model(lambda x: ops.associative_scan(operator.add, x, axis=1, reverse=True))
    want = np.flip(np.cumsum(np.flip(X, 1), 1), 1)
    np.testing.assert_allclose(model.predict(X, verbose=0), want, rtol=1e-5, atol=1e-6)


def test_training_through_an_unknown_length_scan_matches_eager():
    def build():
        inp = lamina.Input((None, 3))
        h = lamina.layers.Dense(3, kernel_initializer="ones")(inp)
        return lamina.Model(inp, lamina.layers.Lambda(_time_scan)(h))
    y = np.ones((4, 6, 3), "float32")
    losses = []
    for eager in (True, False):
        model = build()
        model.compile("sgd", "mse", run_eagerly=eager)
        losses.append(model.fit(X, y, epochs=2, batch_size=4, verbose=0).history["loss"])
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-5)
