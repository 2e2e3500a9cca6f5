"""LSTM and GRU on oneDNN's whole-sequence ops (layers/recurrent/fused_sequence.py):
the same numbers as the step loop (oneDNN off) up to float32 rounding (outputs rtol 1e-5 /
atol 1e-6; gradients rtol 1e-5 / atol 1e-5 of the gradient's largest magnitude), the same
bits in eager and graph mode, and the step loop wherever the fused op would not compute
what the layer computes."""
import os
import subprocess
import sys

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.autograd import eager
from lamina.backend import dnnl_lib, get_backend

pytestmark = pytest.mark.skipif(dnnl_lib.runtime() is None,
                                reason="oneDNN's library is not loaded")
FUSED = {"lstm_sequence", "gru_sequence"}
_X = np.random.default_rng(0).normal(size=(4, 7, 5)).astype("float32")


def _run(make, onednn=True, training=False, x=_X, initial_state=None):
    """(outputs, gradients of sum(outputs**2) w.r.t. x and the weights, ops that ran)."""
    backend = get_backend("numpy")
    backend.onednn = onednn
    seen = set()
    eager.op_observer = seen.add
    try:
        lamina.utils.set_random_seed(1)
        layer = make()
        xt = ops.convert_to_tensor(x)
        with lamina.GradientTape() as tape:
            tape.watch(xt)
            kwargs = {} if initial_state is None else {"initial_state": initial_state}
            out = layer(xt, training=training, **kwargs)
            outs = list(out) if isinstance(out, (list, tuple)) else [out]
            loss = ops.sum(ops.stack([ops.sum(ops.square(o)) for o in outs]))
        grads = tape.gradient(loss, [xt] + layer.trainable_weights)
    finally:
        eager.op_observer = None
        backend.onednn = True
    return [o.numpy() for o in outs], [g.numpy() for g in grads], seen


def _close(fused, loop):
    (outs, grads, _), (ref_outs, ref_grads, _) = fused, loop
    for o, r in zip(outs, ref_outs):
        np.testing.assert_allclose(o, r, rtol=1e-5, atol=1e-6)
    for g, r in zip(grads, ref_grads):
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-5 * np.abs(r).max())


CONFIGS = {
    "lstm": lambda: layers.LSTM(6),
    "lstm-sequences-state-backwards": lambda: layers.LSTM(
        6, return_sequences=True, return_state=True, go_backwards=True),
    "lstm-no-bias-no-forget-bias": lambda: layers.LSTM(6, use_bias=False,
                                                       unit_forget_bias=False),
    "lstm-dropout": lambda: layers.LSTM(6, dropout=0.3, seed=3, return_sequences=True),
    "gru": lambda: layers.GRU(6, return_sequences=True),
    "gru-reset-before-backwards-state": lambda: layers.GRU(
        6, reset_after=False, go_backwards=True, return_state=True),
    "gru-no-bias": lambda: layers.GRU(6, use_bias=False),
    "gru-reset-before-no-bias-sequences": lambda: layers.GRU(
        6, reset_after=False, use_bias=False, return_sequences=True),
    "gru-dropout": lambda: layers.GRU(6, dropout=0.5, seed=2),
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_fused_path_matches_the_step_loop(name):
    training = "dropout" in name
    fused = _run(CONFIGS[name], True, training)
    loop = _run(CONFIGS[name], False, training)
    assert fused[2] & FUSED and not loop[2] & FUSED
    _close(fused, loop)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_initial_states_are_used_and_differentiated(kind):
    rng = np.random.default_rng(3)
    states = [ops.convert_to_tensor(rng.normal(size=(4, 6)).astype("float32"))
              for _ in range(2 if kind == "LSTM" else 1)]
    make = lambda: getattr(layers, kind)(6, return_sequences=True)  # noqa: E731
    fused = _run(make, True, initial_state=states)
    loop = _run(make, False, initial_state=states)
    assert fused[2] & FUSED
    _close(fused, loop)


FALLBACKS = {
    "recurrent-dropout": (lambda: layers.LSTM(3, recurrent_dropout=0.3, seed=1), True),
    "activation": (lambda: layers.GRU(3, activation="relu"), False),
    "recurrent-activation": (lambda: layers.LSTM(3, recurrent_activation="hard_sigmoid"),
                             False),
    "unroll": (lambda: layers.GRU(3, unroll=True), False),
    "use-cudnn-false": (lambda: layers.LSTM(3, use_cudnn=False), False),
    "float64": (lambda: layers.LSTM(3, dtype="float64"), False),
}


@pytest.mark.parametrize("name", sorted(FALLBACKS))
def test_cases_oneDNN_does_not_compute_run_the_step_loop(name):
    make, training = FALLBACKS[name]
    x = _X.astype("float64") if name == "float64" else _X
    _, _, seen = _run(make, True, training, x=x)
    assert not seen & FUSED and "matmul" in seen


def test_a_mask_runs_the_step_loop_with_keras_semantics():
    x = _X.copy()
    x[:2, 5:] = 0.0                                       # trailing padding
    model = lamina.Sequential([lamina.Input((7, 5)), layers.Masking(0.0), layers.LSTM(3)])
    seen = set()
    eager.op_observer = seen.add
    try:
        masked = model(x).numpy()
    finally:
        eager.op_observer = None
    assert not seen & FUSED
    unmasked = lamina.Sequential([lamina.Input((5, 5)), layers.LSTM(3)])
    unmasked.set_weights(model.get_weights())
    np.testing.assert_allclose(masked[:2], unmasked(x[:2, :5]).numpy(), rtol=1e-5, atol=1e-6)


def test_onednn_off_by_environment_runs_the_step_loop():
    code = ("import numpy as np, lamina\n"
            "from lamina.autograd import eager\n"
            "seen = set(); eager.op_observer = seen.add; eager.check_forward_against_spec = 1\n"
            "lamina.layers.LSTM(2)(np.ones((1, 3, 2), 'float32'))\n"
            "print(sorted(seen & {'lstm_sequence', 'step_loop'}), 'matmul' in seen)\n")
    env = dict(os.environ, LAMINA_ONEDNN="0")
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                            text=True, timeout=120, check=True)
    assert result.stdout.split() == ["[]", "True"]


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
@pytest.mark.parametrize("every_output", [True, False])
def test_eager_and_graph_give_the_same_bits(kind, every_output):
    # every_output=False: the sequence and c take no gradient (eager hands the gradient
    # op zeros, a traced step leaves them out)
    layer = getattr(layers, kind)(5, return_sequences=every_output, return_state=every_output)
    x = ops.convert_to_tensor(_X)

    def step(x):
        with lamina.GradientTape() as tape:
            outs = layer(x)
            outs = outs if every_output else [outs]
            loss = ops.sum(ops.stack([ops.sum(ops.square(o)) for o in outs]))
        return outs, tape.gradient(loss, layer.trainable_weights)
    eager_outs, eager_grads = step(x)
    compiled = lamina.jit(step)
    graph_outs, graph_grads = compiled(x)
    names = {node.op.name for node in compiled.trace(x).nodes}
    fused = "lstm" if kind == "LSTM" else "gru"
    assert {f"{fused}_sequence", f"{fused}_sequence_grad"} <= names
    assert "step_loop" not in names
    if not every_output:
        assert "fill_like" not in names       # no zero gradient tensor is made
    for e, g in zip(list(eager_outs) + list(eager_grads), list(graph_outs) + list(graph_grads)):
        np.testing.assert_array_equal(g.numpy(), e.numpy())


def _trained(kind, run_eagerly, onednn=True, steps=3):
    backend = get_backend("numpy")
    backend.onednn = onednn
    try:
        lamina.utils.set_random_seed(4)
        model = lamina.Sequential([lamina.Input((7, 5)),
                                   getattr(layers, kind)(8, dropout=0.2, seed=5),
                                   layers.Dense(3)])
        model.compile(optimizer="adam", loss="mse", run_eagerly=run_eagerly)
        y = np.random.default_rng(2).normal(size=(4, 3)).astype("float32")
        losses = [float(model.train_on_batch(_X, y)) for _ in range(steps)]
        return losses, model.get_weights(), model.predict_on_batch(_X)
    finally:
        backend.onednn = True


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_training_steps_eager_equal_graph_and_step_loop(kind):
    graph, eager_, loop = (_trained(kind, False), _trained(kind, True),
                           _trained(kind, False, onednn=False))
    for other, rtol, atol in ((eager_, 1e-5, 1e-6), (loop, 1e-4, 1e-5)):
        np.testing.assert_allclose(graph[0], other[0], rtol=rtol, atol=atol)
        for a, b in zip(graph[1] + [graph[2]], other[1] + [other[2]]):
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_stateful_layers_carry_states_as_the_step_loop(kind):
    results = []
    for onednn in (True, False):
        backend = get_backend("numpy")
        backend.onednn = onednn
        try:
            lamina.utils.set_random_seed(6)
            model = lamina.Sequential([lamina.Input(batch_shape=(4, 7, 5)),
                                       getattr(layers, kind)(3, stateful=True)])
            first = model.predict_on_batch(_X)
            second = model.predict_on_batch(_X)
            model.layers[0].reset_state()
            third = model.predict_on_batch(_X)
        finally:
            backend.onednn = True
        assert not np.allclose(first, second)
        np.testing.assert_array_equal(first, third)
        results.append((first, second))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_unknown_time_steps_and_new_batch_sizes():
    model = lamina.Sequential([lamina.Input((None, 5)), layers.GRU(4, go_backwards=True)])
    for t, n in ((7, 4), (3, 2), (7, 1)):
        x = _X[:n, :t]
        fused = model.predict_on_batch(x)
        get_backend("numpy").onednn = False
        try:
            loop = layers.GRU(4, go_backwards=True)
            loop(x)
            loop.set_weights(model.layers[0].get_weights())
            expected = loop(x).numpy()
        finally:
            get_backend("numpy").onednn = True
        np.testing.assert_allclose(fused, expected, rtol=1e-5, atol=1e-6)
