"""Eager == graph for every layer in the registry (DESIGN.md: float32 rtol 1e-5, atol 1e-6
after one step).

Each case of ``tests/layers`` (``_all_cases()``) becomes a functional model around the
layer, built twice from the same seed with the same weights: one runs eagerly, its twin
through ``lamina.jit``. Random layers (dropout, noise) draw counter-based values from
seed generators whose keys and counters are equal in both twins, so their draws are
identical by construction and they are compared in training mode too. Checked:

- the forward pass with ``training=False`` and ``training=True`` (default passes, and
  the unoptimized graph with ``passes=[]``), and the weights after it (batch-norm
  statistics move in training mode);
- one training step -- GradientTape over the outputs times fixed probes plus the model's
  losses, then ``w.assign_sub(0.1 * g)`` for every trainable weight -- giving the same
  loss, outputs, gradients and updated weights.
"""
import numpy as np
import pytest

import lamina
from lamina import ops
from tests.layers.harness import _symbolic_inputs, case_id, make_inputs, to_tensors
from tests.layers.recurrent.helpers import fresh
from tests.layers.test_registry import _all_cases

RTOL, ATOL = 1e-5, 1e-6          # DESIGN.md, one step
SEED = 11
LEARNING_RATE = 0.1

def _params():
    return list(_all_cases())


def _build(case, data):
    lamina.utils.set_random_seed(SEED)
    case = fresh(case)
    layer = case.cls(**case.kwargs)
    symbols = _symbolic_inputs(case, data)
    return lamina.Model(symbols, layer(symbols, **case.call_kwargs))


def _twins(case, data):
    eager, graph = _build(case, data), _build(case, data)
    graph.set_weights(eager.get_weights())
    return eager, graph


def _tolerances(case):
    return max(RTOL, case.rtol), max(ATOL, case.atol)


def _assert_close(got, want, case, what):
    rtol, atol = _tolerances(case)
    got, want = lamina.tree.flatten(got), lamina.tree.flatten(want)
    assert len(got) == len(want), f"{case.id}: {what}: {len(got)} values vs {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        assert (g is None) == (w is None), f"{case.id}: {what}[{i}]: {g} vs {w}"
        if g is not None:
            np.testing.assert_allclose(_host(g), _host(w), rtol=rtol, atol=atol,
                                       err_msg=f"{case.id}: {what}[{i}] graph != eager")


def _host(value):
    return np.asarray(value.numpy() if hasattr(value, "numpy") else value)


def _forward(model, training):
    return lambda x: model(x, training=training)


def _train_step(model, probes):
    def step(x):
        with lamina.GradientTape() as tape:
            outputs = lamina.tree.flatten(model(x, training=True))
            loss = ops.convert_to_tensor(0.0)
            for out, probe in zip(outputs, probes):
                if probe is not None:
                    loss = loss + ops.sum(ops.multiply(ops.cast(out, "float32"), probe))
            for extra in model.losses:
                loss = loss + ops.cast(extra, "float32")
        weights = model.trainable_weights
        grads = tape.gradient(loss, weights)
        for weight, grad in zip(weights, grads):
            if grad is not None:
                weight.assign_sub(ops.multiply(grad, LEARNING_RATE))
        return loss, outputs, grads
    return step


def _probes(outputs):
    rng = np.random.default_rng(1)
    return [ops.convert_to_tensor(rng.standard_normal(np.shape(o)).astype("float32"))
            if "float" in str(o.dtype) else None for o in lamina.tree.flatten(outputs)]


@pytest.mark.parametrize("case", _params(), ids=case_id)
def test_layer_eager_equals_graph(case):
    data = make_inputs(case)
    x = to_tensors(data)
    eager, graph = _twins(case, data)
    for training in (False, True):
        want = eager(x, training=training)
        got = lamina.jit(_forward(graph, training))(x)
        _assert_close(got, want, case, f"forward(training={training})")
        _assert_close(graph.get_weights(), eager.get_weights(), case,
                      f"weights after forward(training={training})")
    # The unoptimized graph computes the same (no pass changed the numbers).
    plain = lamina.jit(_forward(graph, False), passes=[])(x)
    _assert_close(plain, eager(x, training=False), case, "unoptimized forward")

    probes = _probes(want)
    want_loss, want_outputs, want_grads = _train_step(eager, probes)(x)
    got_loss, got_outputs, got_grads = lamina.jit(_train_step(graph, probes))(x)
    _assert_close(got_loss, want_loss, case, "training-step loss")
    _assert_close(got_outputs, want_outputs, case, "training-step outputs")
    _assert_close(got_grads, want_grads, case, "gradients")
    _assert_close(graph.get_weights(), eager.get_weights(), case, "updated weights")


def test_every_layer_case_is_walked():
    ids = [case_id(c) for c in _all_cases()]
    assert len(ids) > 100 and any(i.startswith("Dense(") for i in ids)
