"""Control flow traced into graphs: loops are one node whatever their trip count (the
recurrent layers' ``step_loop``, or ``while``), a symbolic predicate selects at run time
(variable writes included), and a model built on them trains in graph mode as eagerly."""
import numpy as np
import pytest

import lamina
from lamina import layers, ops


def _graph(fn):
    (graph, _), = fn._plans.values()
    return graph


def _names(graph):
    return [node.op.name for node in graph.nodes]


def _scan_gradient(xs, c0):
    with lamina.GradientTape() as tape:
        tape.watch([xs, c0])
        c, ys = ops.scan(lambda c, x: (ops.tanh(c * x + 0.3), c * x), c0, xs)
        loss = ops.sum(c) + ops.sum(ys * ys)
    return tape.gradient(loss, [xs, c0])


@pytest.mark.parametrize("kind", ["scan", "fori_loop", "map", "while_loop_bounded"])
def test_a_traced_loop_does_not_grow_with_its_trip_count(kind):
    def build(n):
        if kind == "scan":
            return lamina.jit(_scan_gradient), (ops.ones((n, 3)), ops.ones((3,)))
        if kind == "map":
            return lamina.jit(lambda x: ops.map(lambda r: ops.sum(ops.sin(r)), x)), \
                (ops.ones((n, 3)),)
        if kind == "fori_loop":
            return lamina.jit(lambda v: ops.fori_loop(0, n, lambda i, v: ops.sin(v) + 1.0,
                                                      v)), (ops.ones((3,)),)
        return lamina.jit(lambda v: ops.while_loop(lambda v: ops.sum(v) < 1e9,
                                                   lambda v: v * 1.01, v,
                                                   maximum_iterations=n)), (ops.ones((3,)),)
    sizes = []
    for n in (5, 200):
        fn, args = build(n)
        fn(*args)
        graph = _graph(fn)
        assert _names(graph).count("step_loop") == 1
        sizes.append(len(graph.nodes))
    assert sizes[0] == sizes[1]
    if kind == "scan":
        assert "step_loop_grad" in _names(graph)


def test_an_unbounded_while_loop_is_one_node_whose_trip_count_is_data():
    def fn(x):
        a, n = ops.while_loop(lambda a, n: ops.sum(a) < 100.0, lambda a, n: (a * 2.0, n + 1),
                              (x, 0))
        return a, n
    compiled = lamina.jit(fn)
    for start, trips in [(1.0, 6), (0.01, 13), (200.0, 0)]:
        a, n = compiled(ops.convert_to_tensor(np.full(2, start)))
        assert int(n.numpy()) == trips
        np.testing.assert_allclose(a.numpy(), start * 2.0 ** trips)
    assert len(compiled._plans) == 1 and _names(_graph(compiled)).count("while") == 1


def test_a_traced_cond_selects_its_branch_when_the_graph_runs():
    compiled = lamina.jit(lambda x: ops.cond(ops.sum(x) > 0, lambda: x * 10.0,
                                             lambda: x - 1.0))
    np.testing.assert_allclose(compiled(ops.convert_to_tensor([1.0, 2.0])).numpy(),
                               [10.0, 20.0])
    np.testing.assert_allclose(compiled(ops.convert_to_tensor([-1.0, -2.0])).numpy(),
                               [-2.0, -3.0])
    assert len(compiled._plans) == 1


def test_variable_writes_in_traced_branches_follow_the_chosen_branch():
    counts = lamina.Variable(np.zeros(2, "float32"))
    total = lamina.Variable(np.zeros((), "float32"))

    def step(x):
        def positive():
            counts.assign_add(ops.convert_to_tensor([1.0, 0.0]))
            return x * 2.0

        def negative():
            counts.assign_add(ops.convert_to_tensor([0.0, 1.0]))
            total.assign_add(ops.sum(x))
            return x
        return ops.cond(ops.sum(x) > 0, positive, negative)
    data = [[1.0, 2.0], [-3.0, 1.0], [-1.0, -1.0], [4.0, 0.0]]
    results = {}
    for mode, fn in [("eager", step), ("graph", lamina.jit(step))]:
        counts.assign(np.zeros(2, "float32"))
        total.assign(0.0)
        outs = [fn(ops.convert_to_tensor(np.asarray(d, "float32"))).numpy() for d in data]
        results[mode] = (outs, counts.numpy().copy(), float(total.numpy()))
    np.testing.assert_array_equal(results["graph"][1], [2.0, 2.0])
    assert results["graph"][2] == -4.0
    for e, g in zip(results["eager"][0], results["graph"][0]):
        np.testing.assert_array_equal(e, g)
    np.testing.assert_array_equal(results["eager"][1], results["graph"][1])
    assert results["eager"][2] == results["graph"][2]


@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reverse"])
def test_a_scan_step_that_writes_variables_is_traced_unrolled_and_equals_eager(reverse):
    v = lamina.Variable(np.zeros(3, "float32"))

    def step(c, e):
        v.assign_add(c)
        return c * e + 1.0, c

    def fn(x):
        return ops.scan(step, ops.ones((3,)), x, reverse=reverse)
    x = ops.convert_to_tensor(np.arange(12, dtype="float32").reshape(4, 3) / 10)
    eager = [t.numpy() for t in fn(x)] + [v.numpy().copy()]
    v.assign(np.zeros(3, "float32"))
    compiled = lamina.jit(fn)
    graph = [t.numpy() for t in compiled(x)] + [v.numpy().copy()]
    assert "step_loop" not in _names(_graph(compiled))
    for e, g in zip(eager, graph):
        np.testing.assert_allclose(g, e, rtol=1e-6)
    assert eager[2][0] > 0


def test_scan_unroll_true_unrolls_and_a_partial_unroll_warns_once():
    x = ops.convert_to_tensor(np.arange(12, dtype="float32").reshape(4, 3) / 10)

    def step(c, e):
        return c * e + 1.0, c
    expected = ops.scan(step, ops.ones((3,)), x)[1].numpy()
    unrolled = lamina.jit(lambda x: ops.scan(step, ops.ones((3,)), x, unroll=True))
    np.testing.assert_allclose(unrolled(x)[1].numpy(), expected, rtol=1e-6)
    assert "step_loop" not in _names(_graph(unrolled))
    from lamina.core import ignored_arguments
    ignored_arguments._warned.discard(("scan", "unroll"))
    with pytest.warns(UserWarning, match=r"scan: argument 'unroll' \(unroll=2\) has no effect"):
        lamina.jit(lambda x: ops.scan(step, ops.ones((3,)), x, unroll=2))(x)


def test_fori_loop_with_symbolic_bounds_is_a_while_node():
    compiled = lamina.jit(lambda n, v: ops.fori_loop(
        0, n, lambda i, v: v * 2.0 + ops.cast(i, "float32"), v))
    for n, expected in [(3, 12.0), (0, 1.0), (5, 58.0)]:
        out = compiled(ops.convert_to_tensor(n, "int32"), ops.ones((2,)))
        np.testing.assert_array_equal(out.numpy(), [expected, expected])
    assert "while" in _names(_graph(compiled))


class LoopLayer(layers.Layer):
    """A recurrence written with keras.ops control flow rather than an RNN layer."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units), name="w",
                                 initializer="glorot_uniform")
        self.u = self.add_weight(shape=(self.units, self.units), name="u",
                                 initializer="glorot_uniform")

    def call(self, x):
        features = x.shape[-1]
        h0 = ops.matmul(x[:, 0, :], ops.zeros((features, self.units)))

        def step(h, x_t):
            h = ops.tanh(ops.matmul(x_t, self.w) + ops.matmul(h, self.u))
            return h, h
        h, hs = ops.scan(step, h0, ops.moveaxis(x, 1, 0))
        h = ops.cond(ops.mean(h) > 0, lambda: h * 2.0, lambda: h - 0.5)
        h = ops.fori_loop(0, 3, lambda i, v: v + 0.1 * ops.tanh(ops.matmul(v, self.u)), h)
        h, _ = ops.while_loop(lambda v, n: ops.sum(ops.abs(v)) < 50.0,
                              lambda v, n: (v * 1.1, n + 1), (h, 0), maximum_iterations=4)
        # No xs: the loop node takes the unknown batch size from the carry.
        h, _ = ops.scan(lambda c, _: (c * 0.9 + ops.matmul(c, self.u) * 0.1, None), h,
                        length=3)
        cumulative = ops.associative_scan(lambda a, b: a + b, hs, axis=0)
        return h + ops.mean(cumulative, axis=0)

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def _model():
    lamina.utils.set_random_seed(0)
    return lamina.Sequential([lamina.Input((6, 3)), LoopLayer(4), layers.Dense(1)])


def _trained(run_eagerly):
    model = _model()
    model.compile(optimizer="adam", loss="mse", run_eagerly=run_eagerly)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 6, 3)).astype("float32")
    y = rng.standard_normal((16, 1)).astype("float32")
    history = model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    return model, history.history["loss"]


def test_a_model_built_on_control_flow_trains_in_graph_mode_as_eagerly():
    graph_model, graph_loss = _trained(False)
    eager_model, eager_loss = _trained(True)
    np.testing.assert_allclose(graph_loss, eager_loss, rtol=1e-4, atol=1e-5)
    for g, e in zip(graph_model.get_weights(), eager_model.get_weights()):
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5)
    (graph, _), = graph_model.train_function.function._plans.values()
    names = _names(graph)
    assert names.count("step_loop") >= 4 and names.count("step_loop_grad") >= 4
    initial = _model().get_weights()
    assert all(not np.allclose(g, i) for g, i in zip(graph_model.get_weights(), initial))
