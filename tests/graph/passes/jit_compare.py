"""Helpers for the simplify / constant_fold / cse tests: one function, three ways (eager,
the unoptimized graph, the graph after some passes), same numbers, fewer nodes."""
import collections

import numpy as np

import lamina
from lamina import ops


def op_counts(graph) -> collections.Counter:
    return collections.Counter(node.op.name for node in graph.nodes)


def tensors(*arrays):
    return [ops.convert_to_tensor(a) for a in arrays]


def _flat(result):
    return [r.numpy() for r in (result if isinstance(result, (list, tuple)) else [result])
            if r is not None]


def compare(fn, args, passes, rtol=1e-6, atol=1e-7):
    """Run ``fn`` eagerly, as an unoptimized graph and with ``passes``; assert equal results.
    Returns (unoptimized graph, optimized graph)."""
    expected = _flat(fn(*args))
    raw, optimized = lamina.jit(fn, passes=[]), lamina.jit(fn, passes=passes)
    for compiled in (raw, optimized):
        got = _flat(compiled(*args))
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            np.testing.assert_allclose(g, e, rtol=rtol, atol=atol)
    return raw.trace(*args), optimized.trace(*args)


def assert_shrinks(fn, args, passes, by=1, **tolerances):
    """:func:`compare`, and the optimized graph has at least ``by`` fewer nodes."""
    raw, optimized = compare(fn, args, passes, **tolerances)
    assert len(optimized.nodes) <= len(raw.nodes) - by, \
        (dict(op_counts(raw)), dict(op_counts(optimized)))
    return raw, optimized


def loss_and_gradients(loss_fn, *weights):
    """A function of (inputs...) returning the loss and its gradients w.r.t. ``weights``."""
    def step(*inputs):
        with lamina.GradientTape() as tape:
            loss = loss_fn(*inputs)
        return [loss] + list(tape.gradient(loss, list(weights)))
    return step


def train_mlp(passes, eager=False, loss="sparse_categorical_crossentropy", steps=3,
              activation="softmax"):
    """Losses and weights after ``steps`` Adam steps of a small MLP."""
    from lamina import layers
    rng = np.random.default_rng(3)
    x = rng.standard_normal((16, 5)).astype("float32")
    labels = rng.integers(0, 3, 16)
    y = {"sparse_categorical_crossentropy": labels,
         "categorical_crossentropy": np.eye(3, dtype="float32")[labels],
         "binary_crossentropy": (x[:, :1] > 0).astype("float32")}[loss]
    units = 1 if loss == "binary_crossentropy" else 3
    lamina.utils.set_random_seed(5)
    model = lamina.Sequential([lamina.Input((5,)), layers.Dense(8, activation="relu"),
                               layers.Dense(8, activation="tanh"),
                               layers.Dense(units, activation=activation)])
    model.compile(optimizer="adam", loss=loss, metrics=["accuracy"], run_eagerly=eager)
    model.optimizer.build(model.trainable_variables)
    if not eager:
        model.make_train_function().function.passes = passes
    losses = [model.train_on_batch(x, y) for _ in range(steps)]
    graph = None
    if not eager:
        (graph, _), = model.train_function.function._plans.values()
    return losses, model.get_weights(), graph


def assert_training_keeps_numbers(passes, **kwargs):
    """Eager == unoptimized graph == graph with ``passes`` over 3 Adam steps; the graphs."""
    eager_losses, eager_weights, _ = train_mlp(None, eager=True, **kwargs)
    raw_losses, raw_weights, raw = train_mlp([], **kwargs)
    losses, weights, graph = train_mlp(passes, **kwargs)
    for got in (raw_losses, losses):
        np.testing.assert_allclose(got, eager_losses, rtol=1e-5, atol=1e-6)
    for a, b, c in zip(weights, raw_weights, eager_weights):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(a, c, rtol=1e-4, atol=1e-5)
    return raw, graph
