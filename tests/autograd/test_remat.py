"""lamina.remat and lamina.RematScope: the same values and gradients as without remat,
eagerly and in graphs, with the function really recomputed in the backward pass."""
import contextlib

import numpy as np
import pytest

import lamina
from lamina import layers, ops

RNG = np.random.default_rng(0)
W0 = RNG.normal(size=(3, 3)).astype("float32")
X = RNG.normal(size=(2, 3)).astype("float32")


def _function(calls):
    w = lamina.Variable(W0)

    def f(x, scale=1.0):
        calls.append(1)
        return ops.tanh(ops.sin(x @ w)) * scale
    return f, w


def _step(f, w, x):
    with lamina.GradientTape() as tape:
        tape.watch(x)
        loss = ops.sum(ops.square(f(x, scale=2.0)))
    return loss, tape.gradient(loss, [x, w])


def test_eager_gradients_equal_and_function_runs_twice():
    calls = []
    f, w = _function(calls)
    x = ops.convert_to_tensor(X)
    loss, (gx, gw) = _step(f, w, x)
    assert len(calls) == 1
    calls.clear()
    r_loss, (r_gx, r_gw) = _step(lamina.remat(f), w, x)
    assert len(calls) == 2                     # forward, then the recomputation
    np.testing.assert_allclose(r_loss.numpy(), loss.numpy(), rtol=1e-6)
    np.testing.assert_allclose(r_gx.numpy(), gx.numpy(), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(r_gw.numpy(), gw.numpy(), rtol=1e-5, atol=1e-7)


def test_eager_forward_keeps_no_intermediates_on_the_tape():
    calls = []
    f, w = _function(calls)
    x = ops.convert_to_tensor(X)
    with lamina.GradientTape() as tape:
        tape.watch(x)
        lamina.remat(f)(x)
    assert [r.op.name for r in tape._records] == ["custom_gradient"]


def test_graph_gradients_equal_and_backward_recomputes():
    calls = []
    f, w = _function(calls)
    x = ops.convert_to_tensor(X)
    expected = _step(f, w, x)
    plain = lamina.jit(lambda x: _step(f, w, x))
    rematted = lamina.jit(lambda x: _step(lamina.remat(f), w, x))
    loss, (gx, gw) = rematted(x)
    np.testing.assert_allclose(loss.numpy(), expected[0].numpy(), rtol=1e-6)
    np.testing.assert_allclose(gx.numpy(), expected[1][0].numpy(), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(gw.numpy(), expected[1][1].numpy(), rtol=1e-5, atol=1e-7)
    names = [n.op.name for n in plain.trace(x).nodes]
    assert names.count("sin") == 1                  # no remat: the backward uses cos only
    graph = rematted.trace(x)
    names = [n.op.name for n in graph.nodes]
    assert names.count("sin") == 2 and names.count("matmul") == 4   # fwd, recompute, 2 grads
    barrier = names.index("recompute_barrier")
    assert barrier > names.index("custom_gradient")
    assert names.index("sin", names.index("sin") + 1) > barrier   # recomputed after it


def test_remat_replays_state_updates_once():
    # Dropout's seed state and BatchNormalization's statistics change in the forward; the
    # recomputation reads the values the forward read and changes nothing.
    def make(scope):
        with scope:
            model = lamina.Sequential([layers.Dense(8, activation="relu"),
                                       layers.Dropout(0.3, seed=5),
                                       layers.BatchNormalization(), layers.Dense(2)])
        model(np.zeros((1, 4), "float32"))
        return model
    x = RNG.normal(size=(6, 4)).astype("float32")
    plain, rematted = make(contextlib.nullcontext()), make(lamina.RematScope())
    rematted.set_weights(plain.get_weights())

    def step(model):
        with lamina.GradientTape() as tape:
            loss = ops.sum(ops.square(model(x, training=True)))
        return loss, tape.gradient(loss, model.trainable_variables)
    for compiled in (False, True):
        a = (lamina.jit(lambda: step(plain)) if compiled else lambda: step(plain))()
        b = (lamina.jit(lambda: step(rematted)) if compiled else lambda: step(rematted))()
        np.testing.assert_allclose(b[0].numpy(), a[0].numpy(), rtol=1e-6)
        for p, q in zip(a[1], b[1]):
            np.testing.assert_allclose(q.numpy(), p.numpy(), rtol=1e-5, atol=1e-6)
        for p, q in zip(plain.weights, rematted.weights):    # state advanced once, alike
            np.testing.assert_allclose(q.numpy(), p.numpy(), rtol=1e-6, atol=1e-7)


class _Counting(layers.Layer):
    def __init__(self, units=2, **kwargs):
        super().__init__(**kwargs)
        self.units, self.calls = units, 0

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units), initializer="ones")

    def call(self, x):
        self.calls += 1
        return ops.sin(x @ self.w)


def _calls_per_step(layer, x):
    layer(x)
    layer.calls = 0
    with lamina.GradientTape() as tape:
        loss = ops.sum(layer(x))
    tape.gradient(loss, layer.trainable_variables)
    return layer.calls


@pytest.mark.parametrize("mode, kwargs, name, expected", [
    ("full", {}, "a", 2),
    (None, {}, "a", 1),
    ("list_of_layers", {"layer_names": ["a"]}, "a", 2),
    ("list_of_layers", {"layer_names": ["a"]}, "b", 1),
    # output 4 x 2 = 8 elements; the size comes from one symbolic call first (as Keras)
    ("larger_than", {"output_size_threshold": 7}, "a", 3),
    ("larger_than", {"output_size_threshold": 8}, "a", 2),
    ("activations", {}, "a", 1),                    # no activation: the call is not remat'd
])
def test_scope_modes(mode, kwargs, name, expected):
    with lamina.RematScope(mode=mode, **kwargs):
        layer = _Counting(name=name)
    assert _calls_per_step(layer, np.ones((4, 3), "float32")) == expected


def test_scope_is_taken_at_creation_and_nests():
    with lamina.RematScope("full"):
        outer = _Counting(name="outer")
        with lamina.RematScope(None):
            inner = _Counting(name="inner")
    late = _Counting(name="late")
    x = np.ones((4, 3), "float32")
    assert [_calls_per_step(l, x) for l in (outer, inner, late)] == [2, 1, 1]


def test_activations_mode_remats_the_activation():
    calls = []

    def activation(x):
        calls.append(1)
        return ops.tanh(x)
    with lamina.RematScope("activations"):
        dense = layers.Dense(3, activation=activation)
    x = np.ones((2, 4), "float32")
    dense(x)
    calls.clear()
    with lamina.GradientTape() as tape:
        loss = ops.sum(dense(x))
    grads = tape.gradient(loss, dense.trainable_variables)
    assert len(calls) == 2 and dense.activation is activation
    y = np.tanh(x @ dense.kernel.numpy() + dense.bias.numpy())
    np.testing.assert_allclose(grads[1].numpy(), (1 - y ** 2).sum(0), rtol=1e-5)


def test_errors():
    with pytest.raises(TypeError, match="remat: argument 'f' must be callable; received 3"):
        lamina.remat(3)
    with pytest.raises(ValueError, match="RematScope: argument 'mode' must be one of 'full', "
                                         "'activations', 'larger_than', 'list_of_layers' or "
                                         "None; received 'some'"):
        lamina.RematScope("some")


def test_remat_inside_stateless_call_differentiates_the_mapped_values():
    x = RNG.normal(size=(4, 3)).astype("float32")
    grads = []
    for scope in (contextlib.nullcontext(), lamina.RematScope()):
        with scope:
            model = lamina.Sequential([layers.Dense(5, activation="tanh",
                                                    kernel_initializer="ones"),
                                       layers.Dense(2, kernel_initializer="ones")])
        model(x)
        values = [ops.convert_to_tensor(v.numpy() * 0.5) for v in model.trainable_variables]
        with lamina.GradientTape() as tape:
            tape.watch(values)
            out, _ = model.stateless_call(values, [], x)
            loss = ops.sum(out * out)
        grads.append(tape.gradient(loss, values))
    for plain, rematted in zip(*grads):
        assert rematted is not None
        np.testing.assert_allclose(rematted.numpy(), plain.numpy(), rtol=1e-6)
