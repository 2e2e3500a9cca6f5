import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.errors import ShapeError
from tests.layers.harness import LayerCase, case_id, run_layer_case
from tests.layers.keras11.reference import check_against_keras


def _self_attention(rng, shape):
    return rng.standard_normal(shape).astype("float32")


CASES = [
    LayerCase(layers.GroupQueryAttention, dict(head_dim=2, num_query_heads=4,
                                               num_key_value_heads=2),
              [(2, 3, 4), (2, 5, 4)], (2, 3, 4), trainable_weights=8, params=116,
              rtol=1e-5, atol=1e-5),
    LayerCase(layers.GroupQueryAttention, dict(head_dim=3, num_query_heads=2,
                                               num_key_value_heads=1, use_gate=True),
              [(2, 4, 3), (2, 4, 3)], (2, 4, 3), trainable_weights=10, params=93, rtol=1e-5,
              atol=1e-5),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_group_query_attention_harness(case):
    run_layer_case(case)


def test_matches_keras():
    check_against_keras("gqa", layers.GroupQueryAttention(3, 4, 2))
    check_against_keras("gqa_gate_causal", layers.GroupQueryAttention(2, 2, 1, use_gate=True),
                        call=lambda lay, x: lay(*x, use_causal_mask=True))
    check_against_keras("gqa_window_scores",
                        layers.GroupQueryAttention(2, 4, 4, sliding_window=2, use_bias=False),
                        call=lambda lay, x: lay(*x, return_attention_scores=True))


def test_class_name_alias_and_keras_file(tmp_path):
    assert layers.GroupQueryAttention.__name__ == "GroupedQueryAttention"
    q = layers.Input((3, 4))
    out = layers.GroupQueryAttention(2, 4, 2, seed=1)(q, q)
    model = lamina.Model(q, out)
    model.save(tmp_path / "m.keras")
    again = lamina.saving.load_model(tmp_path / "m.keras")
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype("float32")
    np.testing.assert_allclose(again.predict(x, verbose=0), model.predict(x, verbose=0),
                               rtol=1e-6)


def test_errors():
    with pytest.raises(ValueError, match="'num_query_heads' must be divisible by "
                                         "'num_key_value_heads'; received 3 and 2"):
        layers.GroupQueryAttention(2, 3, 2)
    with pytest.raises(ValueError, match="`sliding_window` must be a positive int"):
        layers.GroupQueryAttention(2, 2, 1, sliding_window=0)
    with pytest.raises(ValueError, match="'dropout' must be a float in"):
        layers.GroupQueryAttention(2, 2, 1, dropout=1.5)
    with pytest.raises(ValueError, match="Dropout is not supported when flash attention is "
                                         "enabled; received flash_attention=True and "
                                         "dropout=0.1"):
        layers.GroupQueryAttention(2, 2, 1, dropout=0.1, flash_attention=True)
    x = np.ones((1, 2, 4), "float32")
    with pytest.raises(ValueError, match="Returning attention scores is not supported when "
                                         "flash attention is enabled"):
        layers.GroupQueryAttention(2, 2, 1, flash_attention=True)(
            x, x, return_attention_scores=True)
    with pytest.raises(ShapeError, match="query, value and key must have rank 3"):
        x = ops.convert_to_tensor(np.ones((2, 3, 3, 4), "float32"))
        layers.GroupQueryAttention(2, 2, 1)(x, x)


def test_compute_output_shape_checks_query_and_value_dims_first():
    # Keras checks query[-1] == value[-1] before looking at the key shape
    layer = layers.GroupQueryAttention(head_dim=2, num_query_heads=4, num_key_value_heads=4,
                                         name="g")
    with pytest.raises(ValueError, match=r"g: the last dimension of query and value must be "
                                         r"equal; received query \(2, 4, 8\), value "
                                         r"\(2, 2, 7\)"):
        layer.compute_output_shape((2, 4, 8), (2, 2, 7), 2)
    with pytest.raises(ValueError, match=r"g: all dimensions of `value` and `key`, except the "
                                         r"last one, must be equal"):
        layer.compute_output_shape((2, 4, 8), (2, 2, 8), (2, 1, 7))
    with pytest.raises(ValueError, match=r"g: the key shape must be a tuple of dimensions; "
                                         r"received 2"):
        layer.compute_output_shape((2, 4, 8), (2, 2, 8), 2)
    assert layers.GroupQueryAttention(2, 2, 1, flash_attention=True)._flash_attention
