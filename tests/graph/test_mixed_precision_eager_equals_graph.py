"""Layers computing in bfloat16 or float16 (mixed policies: float32 weights cast in the call)
give the same bits eagerly and as graphs.

The fuzzer's mixed-dtype rule (tests/graph/fuzz/catalogue_dtypes.py, seed 255) found that a
bfloat16 sigmoid computed eagerly in float32 and returned a float32 array (its kernel
multiplied by a Python float, which ml_dtypes widens), where the graph's fused
``dense_bias_act`` rounds every step into its bfloat16 buffer: predictions differed by 3e-3.
"""
import numpy as np
import pytest

import lamina
from lamina import layers, ops


@pytest.mark.parametrize("activation", ["sigmoid", "tanh", "relu", "linear"])
@pytest.mark.parametrize("policy", ["mixed_bfloat16", "mixed_float16"])
def test_dense_in_a_mixed_policy_predicts_eagers_bits(policy, activation):
    lamina.utils.set_random_seed(1)
    model = lamina.Sequential([lamina.Input((4, 3)),
                               layers.Dense(3, activation=activation, lora_rank=3,
                                            lora_alpha=0.5, dtype=policy)])
    x = ops.convert_to_tensor(
        np.random.default_rng(0).standard_normal((5, 4, 3)).astype("float32"))
    eager = model(x)
    graph = lamina.jit(lambda t: model(t))(x)
    assert eager.dtype == graph.dtype == policy.split("_")[1]
    np.testing.assert_array_equal(graph.numpy(), eager.numpy())


def test_a_bfloat16_sigmoid_keeps_its_dtype_eagerly():
    x = ops.cast(ops.convert_to_tensor(np.linspace(-3, 3, 7, dtype="float32")), "bfloat16")
    y = ops.sigmoid(x)
    assert y.dtype == "bfloat16" and y.data.dtype == x.data.dtype
    np.testing.assert_array_equal(lamina.jit(ops.sigmoid)(x).numpy(), y.numpy())
