import numpy as np
import pytest

import lamina
from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

MHA = layers.MultiHeadAttention
QV = [(2, 5, 4), (2, 6, 4)]
SHAPES = {"kernel": (2, 3, 4), "bias": (4,)}     # by name, the last of each (attention_output)
# The key bias adds the same q.b to every score of a query row, which the softmax cancels:
# its gradient is zero up to rounding (in Keras too), so cases with biases skip the
# harness's "every weight gets a gradient" step; test_mha_gradients covers them.
NO_STEP = dict(check_training_step=False, rtol=1e-4, atol=1e-5)

CASES = [
    # 3 * (4*2*3 + 2*3) + (2*3*4 + 4) = 118, Keras's count for these arguments
    LayerCase(MHA, dict(num_heads=2, key_dim=3), QV, (2, 5, 4), trainable_weights=8,
              weight_shapes=SHAPES, params=118, **NO_STEP),
    LayerCase(MHA, dict(num_heads=2, key_dim=3, value_dim=5, output_shape=7, use_bias=False),
              [(2, 5, 4), (2, 6, 3), (2, 6, 2)], (2, 5, 7), trainable_weights=4,
              weight_shapes={"kernel": (2, 5, 7)}, params=4 * 6 + 2 * 6 + 3 * 10 + 70,
              rtol=1e-4, atol=1e-5, id="MHA(value_dim,output_shape,key)"),
    LayerCase(MHA, dict(num_heads=1, key_dim=2, attention_axes=(1, 2)),
              [(2, 3, 2, 4), (2, 3, 2, 4)], (2, 3, 2, 4), trainable_weights=8,
              params=3 * (8 + 2) + (8 + 4), **NO_STEP, id="MHA(2 attention axes)"),
    LayerCase(MHA, dict(num_heads=2, key_dim=2, output_shape=(2, 3), use_gate=True,
                        sliding_window=2), QV, (2, 5, 2, 3), trainable_weights=10,
              weight_shapes={"kernel": (2, 2, 2, 3), "bias": (2, 3)},
              params=4 * (16 + 4) + (4 * 6 + 6), **NO_STEP, id="MHA(gate,window,2-d output)"),
    LayerCase(MHA, dict(num_heads=2, key_dim=2, dropout=0.3, seed=1), QV, (2, 5, 4),
              trainable_weights=8, params=3 * (16 + 4) + (16 + 4), **NO_STEP,
              id="MHA(dropout)"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_mha_harness(case, backend):
    run_layer_case(case)


def _softmax(x, keep=None, zero_rows=False):
    if keep is not None:
        x = np.where(keep, x, -1e9)
    e = np.exp(x - x.max(-1, keepdims=True))
    p = e / e.sum(-1, keepdims=True)
    return p * keep if zero_rows else p


def _reference(weights, q, v, k, key_dim, keep=None, zero_rows=False):
    wq, bq, wk, bk, wv, bv, wo, bo = weights
    Q = np.einsum("btd,dhk->bthk", q, wq) + bq
    K = np.einsum("bsd,dhk->bshk", k, wk) + bk
    V = np.einsum("bsd,dhv->bshv", v, wv) + bv
    scores = np.einsum("bshk,bthk->bhts", K, Q / np.sqrt(key_dim))
    probs = _softmax(scores, None if keep is None else keep[:, None], zero_rows)
    out = np.einsum("bhts,bshv->bthv", probs, V)
    return np.einsum("bthv,hvd->btd", out, wo) + bo, probs


def _data(seed=0, t=4, s=5, d=6, dv=3):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((2, t, d)).astype("float32"),
            rng.standard_normal((2, s, dv)).astype("float32"),
            rng.standard_normal((2, s, dv)).astype("float32"))


def _random_weights(layer, seed=1):
    rng = np.random.default_rng(seed)
    weights = [rng.standard_normal(w.shape).astype("float32") * 0.5 for w in layer.weights]
    layer.set_weights(weights)
    return weights


def test_mha_matches_einsum_reference(backend):
    q, v, k = _data()
    layer = MHA(num_heads=3, key_dim=2, value_dim=4)
    layer(q, v, k)
    weights = _random_weights(layer)
    out, scores = layer(q, v, k, return_attention_scores=True)
    want, want_scores = _reference(weights, q, v, k, key_dim=2)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(scores.numpy(), want_scores, rtol=1e-4, atol=1e-6)


def test_mha_masks_match_reference(backend):
    q, v, _ = _data(2, t=4, s=4, dv=6)
    layer = MHA(num_heads=2, key_dim=3)
    layer(q, v)
    weights = _random_weights(layer)
    attention_mask = np.random.default_rng(3).random((2, 4, 4)) > 0.3
    value_mask = np.array([[1, 1, 1, 0], [1, 1, 0, 0]], bool)
    keep = attention_mask & value_mask[:, None, :] & np.tril(np.ones((4, 4), bool))
    out = layer(q, v, attention_mask=attention_mask, value_mask=value_mask,
                use_causal_mask=True)
    want, _ = _reference(weights, q, v, v, 3, keep)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-5)


def test_mha_uses_the_keras_masks_of_its_inputs(backend):
    ids = np.array([[1, 2, 0, 0], [3, 0, 0, 0]])
    x = layers.Embedding(5, 4, mask_zero=True)(ids)
    layer = MHA(num_heads=2, key_dim=2)
    layer(x, x)
    weights = _random_weights(layer)
    out = layer(x, x)
    keep = (ids != 0)[:, :, None] & (ids != 0)[:, None, :]
    want, _ = _reference(weights, x.numpy(), x.numpy(), x.numpy(), 2, keep)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(out._keras_mask.numpy(), ids != 0)


def test_mha_fully_masked_rows_follow_keras(backend):
    """Keras's fused path (the default call) leaves a query row whose keys are all masked
    uniform; with return_attention_scores its masked Softmax zeroes it. Same here."""
    ids = np.array([[1, 2, 0], [3, 0, 0]])
    layer = MHA(num_heads=2, key_dim=2)
    x = layers.Embedding(5, 4, mask_zero=True)(ids)
    layer(x, x)
    weights = _random_weights(layer)
    keep = (ids != 0)[:, :, None] & (ids != 0)[:, None, :]
    for zero_rows in (False, True):
        out = layer(x, x, return_attention_scores=zero_rows)
        out = out[0] if zero_rows else out
        want, probs = _reference(weights, x.numpy(), x.numpy(), x.numpy(), 2, keep, zero_rows)
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(layer(x, x, return_attention_scores=True)[1].numpy(), probs,
                               atol=1e-6)


def test_mha_gradients(backend):
    q, v, _ = _data(5)
    layer = MHA(num_heads=2, key_dim=3)
    probe = np.random.default_rng(6).standard_normal((2, 4, 6)).astype("float32")
    with lamina.GradientTape() as tape:
        loss = lamina.ops.sum(layer(q, v) * probe)
    weights = layer.trainable_weights
    grads = {w.path: np.abs(g.numpy()).max()
             for w, g in zip(weights, tape.gradient(loss, weights))}
    key_bias = grads.pop(f"{layer.name}/key/bias")
    assert min(grads.values()) > 1e-3 and key_bias < 1e-5


def test_mha_weight_paths_and_order():
    layer = MHA(num_heads=2, key_dim=3, name="mha")
    layer.build((None, 5, 4), (None, 6, 4))
    assert [w.path for w in layer.weights] == [
        f"mha/{sub}/{var}" for sub in ("query", "key", "value", "attention_output")
        for var in ("kernel", "bias")]
    assert [w.shape for w in layer.weights] == [(4, 2, 3), (2, 3)] * 3 + [(2, 3, 4), (4,)]
    assert layer.count_params() == 118
    layer(np.zeros((1, 5, 4), "float32"), np.zeros((1, 6, 4), "float32"))
    assert len(layer.weights) == 8


def test_mha_in_a_functional_model_with_keywords():
    tokens = lamina.Input((5, 8))
    out = MHA(num_heads=2, key_dim=4)(query=tokens, value=tokens, use_causal_mask=True)
    model = lamina.Model(tokens, layers.Dense(3)(out))
    assert model.output_shape == (None, 5, 3)
    assert model(np.ones((2, 5, 8), "float32")).shape == (2, 5, 3)


def test_mha_dropout_only_in_training():
    q, v, _ = _data(4)
    layer = MHA(num_heads=2, key_dim=2, dropout=0.5, seed=0)
    base = layer(q, v).numpy()
    np.testing.assert_allclose(layer(q, v, training=False).numpy(), base)
    assert not np.allclose(layer(q, v, training=True).numpy(), base)


def test_mha_config_round_trip():
    layer = MHA(num_heads=2, key_dim=3, value_dim=4, output_shape=(5,), attention_axes=-2,
                kernel_regularizer="l2", seed=7)
    config = layer.get_config()
    assert config["output_shape"] == (5,) and config["attention_axes"] == (-2,)
    clone = MHA.from_config(config)
    assert clone.get_config() == {**config, "name": clone.name}


@pytest.mark.parametrize("arg", ["num_heads", "key_dim", "value_dim"])
def test_mha_rejects_bad_sizes(arg):
    kwargs = dict(num_heads=2, key_dim=3, name="m")
    for bad in (0, -2, 1.5):        # Keras 3.15 rejects value_dim=0 too (None means key_dim)
        kwargs[arg] = bad
        with pytest.raises(ValueError, match=rf"m: argument `{arg}` must be a positive int; "
                                             rf"received {bad}"):
            MHA(**kwargs)


def test_mha_flash_attention_keeps_keras_s_limits():
    with pytest.raises(ValueError, match=r"m: Dropout is not supported when flash attention "
                                         r"is enabled"):
        MHA(2, 2, flash_attention=True, dropout=0.1, name="m")
    layer = MHA(2, 2, flash_attention=True, name="m")
    assert layer._flash_attention
    x = np.random.default_rng(0).random((2, 4, 8)).astype("float32")
    with pytest.raises(ValueError, match=r"m: Returning attention scores is not supported "
                                         r"when flash attention is enabled. Please disable "
                                         r"flash attention to access attention scores"):
        layer(query=x, value=x, return_attention_scores=True)
    np.testing.assert_array_equal(layer(x, x).numpy().shape, (2, 4, 8))


def test_mha_keras_private_names_read_the_projections():
    layer = MHA(2, 2, use_gate=True, sliding_window=5, kernel_constraint="non_neg")
    layer.build((1, 2, 2), (1, 2, 2))
    assert layer._query_dense is layer.query_dense and layer._gate_dense is layer.gate_dense
    assert layer._output_dense is layer.output_dense and layer._sliding_window == 5
    assert isinstance(layer._key_dense.kernel.constraint, lamina.constraints.NonNeg)
    assert len(layer.weights) == 10                # no projection counted twice


def test_mha_argument_errors():
    with pytest.raises(ValueError, match=r"m: argument 'dropout' must be a float in \[0, 1\)"):
        MHA(2, 3, dropout=-0.1, name="m")
    with pytest.raises(TypeError, match=r"m: Invalid `output_shape`: argument 'output_shape' "
                                        r"must be an int, a tuple of ints or None; received "
                                        r"'x'"):
        MHA(2, 3, output_shape="x", name="m")
    with pytest.raises(ValueError, match=r"Invalid `output_shape`"):    # Keras's type
        MHA(2, 3, output_shape=8.0, name="m")
    with pytest.raises(TypeError, match=r"m: Invalid `attention_axes`: argument "
                                        r"'attention_axes' must be"):
        MHA(2, 3, attention_axes=1.0, name="m")


def test_mha_input_errors():
    q, v, k = _data()
    with pytest.raises(ValueError, match=r"m: argument 'attention_axes' \(3,\) must name axes "
                                         r"between the batch and feature axes"):
        MHA(2, 3, attention_axes=3, name="m")(q, v)
    with pytest.raises(ValueError, match=r"m: call\(query, value, key=None\) needs a 'value' "
                                         r"tensor"):
        MHA(2, 3, name="m")(q)
    with pytest.raises(ValueError, match=r"m: all dimensions of `value` and `key`, except the "
                                         r"last one, must be equal; received value "
                                         r"\(2, 5, 3\), key \(2, 4, 3\)"):
        MHA(2, 3, name="m")(q, v, k[:, :4])
    with pytest.raises(ValueError, match=r"m: query and value must have the same rank, at "
                                         r"least 3"):
        MHA(2, 3, name="m")(q[:, 0], v[:, 0])
    with pytest.raises(ValueError, match=r"query: the last 1 dimension\(s\) of the input must "
                                         r"be known"):
        MHA(2, 3, name="m").build((None, 5, None), (None, 6, 3))


def test_mha_build_config_in_keras_form():
    layer = MHA(num_heads=2, key_dim=3)
    layer(np.zeros((1, 5, 4), "float32"), np.zeros((1, 6, 3), "float32"))
    build_config = layer.get_build_config()
    assert build_config == {"shapes_dict": {"query_shape": [1, 5, 4],
                                            "value_shape": [1, 6, 3]}}
    clone = MHA.from_config(layer.get_config())
    clone.build_from_config(build_config)
    clone.set_weights(layer.get_weights())
    assert [w.path.split("/", 1)[1] for w in clone.weights] == \
        [w.path.split("/", 1)[1] for w in layer.weights]
    keras_form = {"shapes_dict": {"query_shape": [None, 5, 4], "value_shape": [None, 6, 3],
                                  "key_shape": [None, 6, 2]}}
    with_key = MHA(num_heads=2, key_dim=3)
    with_key.build_from_config(keras_form)
    assert with_key.key_dense.kernel.shape == (2, 2, 3) and with_key.built


def test_mha_loads_a_keras_3_config():
    policy = {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"},
              "registered_name": None}
    config = {"name": "mha", "trainable": True, "dtype": policy, "num_heads": 2, "key_dim": 3,
              "value_dim": 3, "dropout": 0.0, "use_bias": True, "use_gate": False,
              "output_shape": None, "attention_axes": None, "sliding_window": None,
              "kernel_initializer": {"module": "keras.initializers",
                                     "class_name": "GlorotUniform",
                                     "config": {"seed": None, "input_axes": None,
                                                "output_axes": None},
                                     "registered_name": None},
              "bias_initializer": {"module": "keras.initializers", "class_name": "Zeros",
                                   "config": {}, "registered_name": None},
              "kernel_regularizer": None, "bias_regularizer": None,
              "activity_regularizer": None, "kernel_constraint": None, "bias_constraint": None,
              "seed": None}
    layer = MHA.from_config(config)
    assert layer(np.ones((1, 2, 4), "float32"), np.ones((1, 3, 4), "float32")).shape == \
        (1, 2, 4)
    assert layer.get_config() == config


def test_mha_sliding_window_and_gate_match_reference(backend):
    q, v, _ = _data(7, t=5, s=5, dv=6)
    layer = MHA(num_heads=2, key_dim=3, sliding_window=2, use_gate=True)
    layer(q, v)
    assert [w.path.split("/", 1)[1] for w in layer.weights][4:6] == ["gate/kernel", "gate/bias"]
    weights = _random_weights(layer)
    gate_kernel, gate_bias = weights.pop(4), weights.pop(4)
    idx = np.arange(5)
    keep = (np.abs(idx[:, None] - idx[None, :]) < 2) & (idx[:, None] >= idx[None, :])
    keep = np.broadcast_to(keep, (2, 5, 5))
    wq, bq, wk, bk, wv, bv, wo, bo = weights
    Q = np.einsum("btd,dhk->bthk", q, wq) + bq
    K = np.einsum("bsd,dhk->bshk", v, wk) + bk
    V = np.einsum("bsd,dhv->bshv", v, wv) + bv
    probs = _softmax(np.einsum("bshk,bthk->bhts", K, Q / np.sqrt(3)), keep[:, None])
    heads = np.einsum("bhts,bshv->bthv", probs, V)
    gate = 1 / (1 + np.exp(-(np.einsum("btd,dhv->bthv", q, gate_kernel) + gate_bias)))
    want = np.einsum("bthv,hvd->btd", heads * gate, wo) + bo
    out = layer(q, v, use_causal_mask=True)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-5)


def test_mha_rejects_bad_sliding_window():
    with pytest.raises(ValueError, match=r"m: argument `sliding_window` must be a positive "
                                         r"int; received 0"):
        MHA(2, 3, sliding_window=0, name="m")


def _causal_vs_merged(layer, heads, size, t=5, **kwargs):
    rng = np.random.RandomState(0)
    q, k, v = (rng.randn(1, t, heads, size).astype("float32") for _ in range(3))
    extra = np.ones((1, t, t), bool)
    extra[:, 3, 1] = False
    merged = extra & np.tril(np.ones((t, t), bool))[None]
    both, _ = layer._compute_attention(q, k, v, attention_mask=extra, use_causal_mask=True,
                                       **kwargs)
    alone, _ = layer._compute_attention(q, k, v, attention_mask=merged, **kwargs)
    return both.numpy(), alone.numpy()


@pytest.mark.parametrize("scores", [False, True])
def test_compute_attention_is_keras_s_override_point(scores):
    layer = MHA(num_heads=2, key_dim=4)
    layer.build((1, 5, 8), (1, 5, 8))
    both, merged = _causal_vs_merged(layer, 2, 4, return_attention_scores=scores)
    np.testing.assert_allclose(both, merged, atol=1e-6)
    gqa = layers.GroupQueryAttention(head_dim=4, num_query_heads=4, num_key_value_heads=2)
    gqa.build((1, 5, 16), (1, 5, 16))
    gqa._return_attention_scores = scores
    both, merged = _causal_vs_merged(gqa, 4, 4)
    np.testing.assert_allclose(both, merged, atol=1e-6)


@pytest.mark.parametrize("base", ["mha", "gqa"])
def test_an_override_with_keras_s_older_signature_gets_the_causal_mask(base):
    seen = {}
    cls = MHA if base == "mha" else layers.GroupQueryAttention

    class Sub(cls):
        def _compute_attention(self, query, key, value, attention_mask=None, training=None,
                               *args):
            seen["mask"] = attention_mask
            return super()._compute_attention(query, key, value, attention_mask, training,
                                              *args)

    layer = Sub(num_heads=2, key_dim=4) if base == "mha" else \
        Sub(head_dim=4, num_query_heads=4, num_key_value_heads=2)
    x = np.random.RandomState(0).randn(2, 5, 8 if base == "mha" else 16).astype("float32")
    out = layer(x, x, use_causal_mask=True)
    np.testing.assert_array_equal(np.broadcast_to(seen["mask"].numpy(), (2, 5, 5)),
                                  np.broadcast_to(np.tril(np.ones((5, 5), bool)), (2, 5, 5)))
    plain = cls.from_config(layer.get_config())
    plain.build(x.shape, x.shape)
    plain.set_weights(layer.get_weights())
    np.testing.assert_allclose(out.numpy(), plain(x, x, use_causal_mask=True).numpy(),
                               rtol=1e-6)


def test_projections_take_lora_and_a_policy_map_by_path():
    # Keras's MHA projections are EinsumDense layers: enable_lora freezes their kernels
    # (8 trainable, 3 frozen here), and a DTypePolicyMap reaches them by path 'mha/query'.
    query = np.array([[[1.0, 0.0], [0.0, 1.0]]], "float32")
    layer = layers.MultiHeadAttention(num_heads=3, key_dim=8, use_bias=False, use_gate=True)
    layer.build(query.shape, query.shape, query.shape)
    before = layer(query, query).numpy()
    for projection in (layer.query_dense, layer.key_dense, layer.value_dense):
        projection.enable_lora(2)
    assert len(layer.trainable_variables) == 8 and len(layer.non_trainable_variables) == 3
    np.testing.assert_allclose(layer(query, query).numpy(), before, rtol=1e-6)  # b is zero

    policy = lamina.dtype_policies.QuantizedDTypePolicy("int8", "float32")
    policy_map = lamina.dtype_policies.DTypePolicyMap()
    policy_map["mha/query"] = policy
    mha = layers.MultiHeadAttention(num_heads=3, key_dim=8, dtype=policy_map, name="mha")
    mha.build(query.shape, query.shape, query.shape)
    assert mha.query_dense.path == "mha/query"
    assert mha.query_dense._kernel.dtype == "int8"
    assert mha.key_dense._kernel.dtype == "float32"
