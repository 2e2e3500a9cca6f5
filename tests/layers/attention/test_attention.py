import numpy as np
import pytest

import lamina
from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

QV = [(2, 5, 4), (2, 6, 4)]

CASES = [
    LayerCase(layers.Attention, {}, QV, (2, 5, 4), trainable_weights=0, params=0),
    LayerCase(layers.Attention, dict(use_scale=True), QV, (2, 5, 4), trainable_weights=1,
              weight_shapes={"scale": ()}, params=1),
    LayerCase(layers.Attention, dict(score_mode="concat", use_scale=True), QV, (2, 5, 4),
              trainable_weights=2, weight_shapes={"scale": (), "concat_score_weight": ()},
              params=2),
    LayerCase(layers.Attention, dict(score_mode="concat"), [(2, 5, 4), (2, 6, 3), (2, 6, 4)],
              (2, 5, 3), trainable_weights=1, params=1, id="Attention(concat,key)"),
    LayerCase(layers.Attention, dict(dropout=0.5, seed=3), QV, (2, 5, 4), trainable_weights=0,
              params=0, id="Attention(dropout)"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_attention_harness(case, backend):
    run_layer_case(case)


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _reference(q, v, k, scores, q_mask=None, v_mask=None, causal=False):
    keep = np.ones(scores.shape, bool)
    if v_mask is not None:
        keep &= v_mask[:, None, :]
    if causal:
        keep &= np.tril(np.ones(scores.shape[-2:], bool))[None]
    weights = _softmax(scores - 1e9 * ~keep)
    out = weights @ v
    if q_mask is not None:
        out = out * q_mask[..., None]
    return out, weights


def _inputs(seed=0, tq=4, tv=5, dim=3):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype("float32") for s in [(2, tq, dim), (2, tv, dim),
                                                               (2, tv, dim)]]


@pytest.mark.parametrize("causal", [False, True])
def test_dot_attention_matches_numpy(backend, causal):
    q, v, k = _inputs(tv=4)
    layer = layers.Attention(use_scale=True)
    layer([q, v, k])
    layer.set_weights([np.array(0.7, "float32")])
    q_mask = np.array([[1, 1, 1, 0], [1, 1, 0, 0]], bool)
    v_mask = np.array([[1, 1, 0, 1], [1, 1, 1, 1]], bool)
    out, weights = layer([q, v, k], mask=[q_mask, v_mask], return_attention_scores=True,
                         use_causal_mask=causal)
    want, want_w = _reference(q, v, k, 0.7 * q @ k.transpose(0, 2, 1), q_mask, v_mask, causal)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(weights.numpy(), want_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(out._keras_mask.numpy(), q_mask)


@pytest.mark.parametrize("use_scale", [False, True])
def test_concat_attention_matches_numpy(backend, use_scale):
    q, v, k = _inputs(1)
    layer = layers.Attention(score_mode="concat", use_scale=use_scale)
    layer([q, v, k])
    scale, weight = 1.3, 0.8
    layer.set_weights([np.array(scale, "float32")] * use_scale + [np.array(weight, "float32")])
    pairs = q[:, :, None, :] + k[:, None, :, :]
    scores = weight * np.tanh((scale if use_scale else 1.0) * pairs).sum(-1)
    want, _ = _reference(q, v, k, scores, causal=True)
    out = layer([q, v, k], use_causal_mask=True)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-6)


def test_additive_attention_matches_numpy(backend):
    q, v, _ = _inputs(2)
    layer = layers.AdditiveAttention()
    layer([q, v])
    scale = layer.get_weights()[0]
    scores = (scale * np.tanh(q[:, :, None, :] + v[:, None, :, :])).sum(-1)
    want, _ = _reference(q, v, v, scores)
    np.testing.assert_allclose(layer([q, v]).numpy(), want, rtol=1e-5, atol=1e-6)


def test_attention_masks_come_from_the_inputs():
    ids_q, ids_v = np.array([[1, 2, 0]]), np.array([[3, 0, 0, 0]])
    emb = layers.Embedding(5, 3, mask_zero=True)
    q, v = emb(ids_q), emb(ids_v)
    out, weights = layers.Attention()([q, v], return_attention_scores=True)
    np.testing.assert_allclose(weights.numpy()[0, :, 1:], 0.0, atol=1e-6)
    np.testing.assert_allclose(out.numpy()[0, 2], 0.0)
    np.testing.assert_array_equal(out._keras_mask.numpy(), ids_q != 0)


def test_attention_dropout_only_in_training():
    q, v, _ = _inputs(3)
    layer = layers.Attention(dropout=0.5, seed=1)
    base = layer([q, v]).numpy()
    np.testing.assert_allclose(layer([q, v], training=False).numpy(), base)
    assert not np.allclose(layer([q, v], training=True).numpy(), base)


def test_attention_in_a_functional_model():
    query, value = lamina.Input((4, 3)), lamina.Input((5, 3))
    model = lamina.Model([query, value], layers.Attention(use_scale=True)([query, value]))
    q, v, _ = _inputs(4)
    want, _ = _reference(q, v, v, q @ v.transpose(0, 2, 1))
    np.testing.assert_allclose(model([q, v]).numpy(), want, rtol=1e-5, atol=1e-6)


def test_attention_argument_errors():
    with pytest.raises(ValueError, match=r"a: Invalid value for argument score_mode. Expected "
                                         r"one of \{'dot', 'concat'\}; received 'add'"):
        layers.Attention(score_mode="add", name="a")
    with pytest.raises(ValueError, match=r"a: argument 'dropout' must be a float in \[0, 1\); "
                                         r"received 1.5"):
        layers.Attention(dropout=1.5, name="a")


def test_attention_input_errors():
    q, v, _ = _inputs()
    with pytest.raises(ValueError, match=r"a must be called on a list of 2 or 3 tensors, "
                                         r"\[query, value\] or \[query, value, key\]; received "
                                         r"a single tensor of shape \(2, 4, 3\)"):
        layers.Attention(name="a")(q)
    with pytest.raises(ValueError, match=r"a must be called on a list of length 2 or 3, "
                                         r"\[query, value\] or \[query, value, key\]; "
                                         r"received a list of 1"):
        layers.Attention(name="a")([q])
    with pytest.raises(ValueError, match=r"a expects query of rank 3 or more \(batch, \.\.\., "
                                         r"steps, dim\), all inputs of one rank; received "
                                         r"shape \(2, 3\)"):
        layers.Attention(name="a")([q[:, 0], v])
    with pytest.raises(ValueError, match=r"a: query and key must have the same last "
                                         r"dimension"):
        layers.Attention(name="a")([q, v[..., :2]])
    with pytest.raises(ValueError, match=r"a: value and key must have the same number of "
                                         r"steps"):
        layers.Attention(name="a")([q, v, v[:, :2]])
    with pytest.raises(ValueError, match=r"a: the layer mask must be a list of length 2 or 3, "
                                         r"\[query_mask, value_mask\]"):
        layers.Attention(name="a")([q, v], mask=np.ones((2, 4), bool))
    with pytest.raises(ValueError, match=r"a: the layer mask must be a list of length 2 or 3"):
        layers.Attention(name="a")([q, v], mask=[np.ones((2, 4), bool)])


def test_attention_on_4d_inputs_attends_over_the_second_to_last_axis():
    # Keras 3.15's test_attention_nd_inputs: (batch, h, w, c) inputs, scores (batch, h, w, w)
    rng = np.random.default_rng(3)
    q = rng.random((2, 3, 4, 5)).astype("float32")
    v = rng.random((2, 3, 6, 5)).astype("float32")
    out, scores = layers.Attention()([q, v], return_attention_scores=True)
    logits = q @ np.swapaxes(v, -1, -2)
    e = np.exp(logits - logits.max(-1, keepdims=True))
    want_scores = e / e.sum(-1, keepdims=True)
    assert out.shape == (2, 3, 4, 5) and scores.shape == (2, 3, 4, 6)
    np.testing.assert_allclose(scores.numpy(), want_scores, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out.numpy(), want_scores @ v, rtol=1e-5, atol=1e-6)


def test_calculate_score_mask_is_keras_s_helper():
    layer = layers.Attention()
    scores = np.zeros((2, 3, 4), "float32")
    assert layer._calculate_score_mask(scores, v_mask=None, use_causal_mask=False) is None
    causal = np.tril(np.ones((1, 3, 4), bool))
    np.testing.assert_array_equal(
        layer._calculate_score_mask(scores, None, use_causal_mask=True).numpy(), causal)
    v_mask = np.array([[True, False, True, False]])
    np.testing.assert_array_equal(
        layer._calculate_score_mask(scores, v_mask, use_causal_mask=True).numpy(),
        np.logical_and(causal, v_mask[:, None, :]))
