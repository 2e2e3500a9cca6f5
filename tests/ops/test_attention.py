"""dot_product_attention: a numpy reference through the op harness, and Keras 3's numbers."""
import numpy as np
import pytest

from lamina import ops
from lamina.errors import ShapeError
from tests.harness import case, rand, run_case


def np_attention(q, k, v, bias=None, mask=None, scale=None, is_causal=False):
    scale = 1 / np.sqrt(q.shape[-1]) if scale is None else scale
    logits = np.einsum("btnh,bsnh->bnts", q, k) * scale
    if bias is not None:
        logits = logits + bias
    keep = np.ones(logits.shape, bool)
    if mask is not None:
        keep &= mask
    if is_causal:
        keep &= np.tril(np.ones(logits.shape[-2:], bool))
    logits = np.where(keep, logits, -0.7 * 3.38953e38)
    p = np.exp(logits - logits.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return np.einsum("bnts,bsnh->btnh", p, v)


MASK = np.array([[[[True, False, True, True], [True, True, False, True],
                   [False, True, True, True]]]])
CASES = [
    case("dot_product_attention", ops.dot_product_attention, np_attention,
         [rand(2, 3, 2, 4), rand(2, 4, 2, 4), rand(2, 4, 2, 4)]),
    case("dot_product_attention",
         lambda q, k, v, b: ops.dot_product_attention(q, k, v, bias=b, mask=MASK, scale=0.3),
         lambda q, k, v, b: np_attention(q, k, v, b, MASK, 0.3),
         [rand(1, 3, 2, 4), rand(1, 4, 2, 4), rand(1, 4, 2, 4), rand(1, 2, 3, 4)],
         label="bias-mask"),
    case("dot_product_attention",
         lambda q, k, v: ops.dot_product_attention(q, k, v, is_causal=True),
         lambda q, k, v: np_attention(q, k, v, is_causal=True),
         [rand(1, 4, 1, 3), rand(1, 4, 1, 3), rand(1, 4, 1, 3)], label="causal"),
    # grouped-query attention: query head n reads key/value head n // 2
    case("dot_product_attention", ops.dot_product_attention,
         lambda q, k, v: np_attention(q, np.repeat(k, 2, axis=2), np.repeat(v, 2, axis=2)),
         [rand(2, 3, 4, 4), rand(2, 5, 2, 4), rand(2, 5, 2, 4)], label="gqa"),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


Q = [[[[-0.829, -0.526, 0.603, 0.164], [-0.812, -0.134, -0.042, -0.681]],
      [[0.469, -0.773, -0.218, 0.033], [-0.139, 0.174, 0.476, 0.913]],
      [[-0.432, 0.297, 0.392, -0.415], [-0.997, 0.947, -0.403, -0.372]]]]
K = [[[[0.783, 0.17, -0.057, 0.547], [-0.939, 0.414, -0.252, -0.818]],
      [[0.321, 0.863, -0.586, 0.26], [-0.404, 0.484, 0.444, -0.563]],
      [[0.66, 0.315, 0.366, 0.64], [-0.143, 0.517, 0.757, -0.795]],
      [[0.7, -0.212, -0.041, -0.707], [0.397, -0.416, 0.742, -0.449]]]]
V = [[[[0.124, -0.201, 0.226, -0.607], [-0.639, 0.494, 0.504, 0.134]],
      [[0.842, -0.588, 0.702, -0.662], [0.929, 0.247, 0.214, 0.941]],
      [[0.574, 0.58, -0.892, -0.261], [-0.83, -0.613, -0.572, 0.717]],
      [[-0.746, -0.406, -0.014, 0.699], [0.93, 0.416, -0.573, 0.09]]]]
B = [[[[0.412, -0.896, 0.36, -0.263], [0.179, 0.339, 0.338, 0.046],
       [0.109, -0.604, -0.01, -0.749]],
      [[-0.039, 0.072, 0.548, -0.213], [-0.961, 0.055, -0.59, 0.483],
       [-0.223, -0.239, 0.819, -0.214]]]]
# keras.ops.dot_product_attention (Keras 3.15.1, numpy backend, float32): the first row
# (t = 0) of each result
KERAS_FIRST_ROWS = [
    ({}, [[0.179126, -0.109948, -0.05766, -0.183473],
          [-0.017809, 0.157651, -0.015143, 0.461751]]),
    ({"is_causal": True, "scale": 0.7}, [[0.124, -0.201, 0.226, -0.607],
                                         [-0.639, 0.494, 0.504, 0.134]]),
    ({"mask": np.array([[[[True, True, False, True]]]]), "bias": B},
     [[-0.044868, -0.312783, 0.215391, -0.221111], [0.233773, 0.38998, 0.186928, 0.414735]]),
]
KERAS_LAST_ROW_MASKED = [[0.100564, -0.358279, 0.29537, -0.292737],
                         [0.109591, 0.399722, 0.255573, 0.400256]]


@pytest.mark.parametrize("kwargs, first_row", KERAS_FIRST_ROWS, ids=["plain", "causal",
                                                                      "mask-bias"])
def test_matches_keras(kwargs, first_row, backend):
    q, k, v = (ops.convert_to_tensor(np.array(a, dtype="float32")) for a in (Q, K, V))
    kwargs = {n: (np.array(a, dtype="float32") if n == "bias" else a)
              for n, a in kwargs.items()}
    out = ops.dot_product_attention(q, k, v, **kwargs)
    assert out.shape == (1, 3, 2, 4) and out.dtype == "float32"
    np.testing.assert_allclose(out.numpy()[0, 0], first_row, atol=2e-6)
    if "mask" in kwargs:
        np.testing.assert_allclose(out.numpy()[0, 2], KERAS_LAST_ROW_MASKED, atol=2e-6)


def test_refusals(backend):
    q = ops.convert_to_tensor(np.array(Q))
    with pytest.raises(ValueError, match=r"dot_product_attention: flash attention is not "
                                         r"supported"):
        ops.dot_product_attention(q, q, q, flash_attention=True)
    with pytest.raises(ValueError, match=r"dot_product_attention: attn_logits_soft_cap is "
                                         r"only supported by Keras for JAX on TPU"):
        ops.dot_product_attention(q, q, q, attn_logits_soft_cap=20.0)
    with pytest.raises(ShapeError, match=r"dot_product_attention: argument 'key' must have "
                                         r"rank 4"):
        ops.dot_product_attention(q, q[0], q)
    with pytest.raises(ShapeError, match=r"dot_product_attention: 'query' and 'key' must "
                                         r"have the same head_dim"):
        ops.dot_product_attention(q, q[..., :3], q)
    out = ops.dot_product_attention(q, q, q, flash_attention=False)
    assert out.shape == (1, 3, 2, 4)
    with pytest.raises(ShapeError, match=r"dot_product_attention: the number of query heads "
                                         r"\(2\) must be a multiple of the number of "
                                         r"key/value heads \(3\)"):
        ops.dot_product_attention(q, ops.zeros((1, 3, 3, 4)), ops.zeros((1, 3, 3, 4)))


def test_grouped_query_attention_matches_keras(backend):
    q = np.sin(np.arange(24)).reshape(1, 2, 4, 3).astype("float32")
    k = np.cos(np.arange(18)).reshape(1, 3, 2, 3).astype("float32")
    v = (np.arange(18).reshape(1, 3, 2, 3) / 10).astype("float32")
    out = ops.dot_product_attention(q, k, v).numpy()
    # Keras 3.15.1 (JAX backend)
    np.testing.assert_allclose(out, [[
        [[0.6925252, 0.7925252, 0.8925253], [0.5048476, 0.6048476, 0.7048475],
         [0.8063239, 0.9063239, 1.0063239], [0.9936594, 1.0936594, 1.1936594]],
        [[0.6901916, 0.7901916, 0.8901916], [0.5156836, 0.6156836, 0.7156836],
         [0.8168276, 0.9168276, 1.0168276], [0.9771291, 1.0771291, 1.1771291]]]],
        rtol=1e-6, atol=1e-6)
