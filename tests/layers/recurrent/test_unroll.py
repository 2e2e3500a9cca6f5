"""``unroll=True``: a compiled graph holds the unrolled time loop (one step per timestep,
no ``scan`` node), with the numbers of the scan and of eager mode."""
import numpy as np
import pytest

import lamina
from lamina import layers, ops


@pytest.mark.parametrize("make", [lambda u: layers.LSTM(3, return_sequences=True, unroll=u),
                                  lambda u: layers.GRU(3, unroll=u),
                                  lambda u: layers.SimpleRNN(3, go_backwards=True, unroll=u)],
                         ids=["LSTM", "GRU", "SimpleRNN"])
def test_unroll_traces_the_loop_unrolled_with_equal_numbers(make):
    x = ops.convert_to_tensor(np.random.default_rng(0).normal(size=(2, 5, 4)).astype("f4"))
    results, graphs = [], []
    for unroll in (False, True):
        lamina.utils.set_random_seed(1)
        layer = make(unroll)
        eager = layer(x)

        def step(x, layer=layer):
            with lamina.GradientTape() as tape:
                y = layer(x)
                loss = ops.sum(ops.square(y))
            return y, tape.gradient(loss, layer.trainable_weights)
        compiled = lamina.jit(step)
        y, grads = compiled(x)
        np.testing.assert_allclose(y.numpy(), eager.numpy(), rtol=1e-5, atol=1e-6)
        results.append((y.numpy(), [g.numpy() for g in grads]))
        graphs.append([node.op.name for node in compiled.trace(x).nodes])
    # the loop is one node each way: a scan, or LSTM/GRU's whole-sequence op on oneDNN
    loops = [("step_loop", "step_loop_grad"), ("lstm_sequence", "lstm_sequence_grad"),
             ("gru_sequence", "gru_sequence_grad")]
    assert any(f in graphs[0] and g in graphs[0] for f, g in loops)
    assert not any(f in graphs[1] or g in graphs[1] for f, g in loops)
    assert len(graphs[1]) > len(graphs[0])
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-5, atol=1e-6)
    for a, b in zip(results[1][1], results[0][1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
