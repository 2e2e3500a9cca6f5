"""A graph plan makes its steps' oneDNN primitives when it is built (Backend.prepare_kernel
with dnnl_lib.preparing): nothing runs then, and the first run finds them in the cache."""
import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.backend import dnnl_lib, get_backend
from lamina.graph.executor import Plan

needs_onednn = pytest.mark.skipif(
    dnnl_lib.runtime() is None,
    reason="oneDNN's library is not loaded (LAMINA_ONEDNN=0, or not Linux x86-64)")


def _kinds():
    return sorted({key[0] for key, value in dnnl_lib.CACHE.items() if value is not None})


@needs_onednn
def test_building_a_plan_makes_the_primitives_and_runs_nothing():
    lamina.utils.set_random_seed(0)
    model = lamina.Sequential([lamina.Input((8, 8, 3)), layers.Conv2D(4, 3),
                               layers.BatchNormalization(), layers.MaxPooling2D(),
                               layers.Flatten(), layers.Dense(2)])
    x = ops.convert_to_tensor(np.random.default_rng(0).standard_normal((5, 8, 8, 3)),
                              dtype="float32")

    def step(x):
        with lamina.GradientTape() as tape:
            loss = ops.sum(ops.square(model(x, training=True)))
        return tape.gradient(loss, model.trainable_weights)
    graph = lamina.jit(step).trace(x)
    before = [v.numpy().copy() for v in model.weights]
    dnnl_lib.clear_cache()
    plan = Plan(graph, get_backend())
    # (no conv_bwd_data: x takes no gradient)
    assert {"conv", "conv_bwd_weights", "batch_norm", "batch_norm_grad", "pool",
            "max_pool_grad"} <= set(_kinds()), _kinds()
    for a, b in zip(before, model.weights):        # nothing ran: no statistics moved
        np.testing.assert_array_equal(a, b.numpy())
    made = dict(dnnl_lib.CACHE)
    plan([x.data])
    assert all(dnnl_lib.CACHE.get(k) is v for k, v in made.items())   # found, not made again


@needs_onednn
def test_preparing_ends_the_kernel_call_and_leaves_eager_calls_alone():
    backend = get_backend()
    x = np.ones((2, 6, 6, 3), dtype="float32")
    w = np.ones((3, 3, 3, 4), dtype="float32")
    dnnl_lib.clear_cache()
    calls = []

    def forward(x, w):
        calls.append("start")
        y = backend.conv2d(x, w, (1, 1), ((0, 0), (0, 0)), (1, 1), 1)
        calls.append("end")          # never reached while preparing
        return y
    backend.prepare_kernel(forward, [(x.shape, "float32"), (w.shape, "float32")])
    assert calls == ["start"] and "conv" in _kinds()
    np.testing.assert_array_equal(forward(x, w), np.full((2, 4, 4, 4), 27, "float32"))
    assert calls == ["start", "start", "end"]
