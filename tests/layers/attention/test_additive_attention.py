import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.AdditiveAttention, {}, [(2, 5, 4), (2, 6, 4)], (2, 5, 4),
              trainable_weights=1, weight_shapes={"scale": (4,)}, params=4),
    LayerCase(layers.AdditiveAttention, dict(use_scale=False), [(2, 3, 2), (2, 4, 5), (2, 4, 2)],
              (2, 3, 5), trainable_weights=0, params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_additive_attention_harness(case, backend):
    run_layer_case(case)


def test_additive_attention_config_has_no_score_mode():
    config = layers.AdditiveAttention(dropout=0.1).get_config()
    assert "score_mode" not in config and config["use_scale"] is True
    assert layers.AdditiveAttention.from_config(config).dropout == 0.1


def test_additive_attention_causal(backend):
    rng = np.random.default_rng(0)
    q, v = rng.standard_normal((1, 3, 2)), rng.standard_normal((1, 3, 2))
    _, weights = layers.AdditiveAttention()([q, v], use_causal_mask=True,
                                            return_attention_scores=True)
    np.testing.assert_allclose(np.triu(weights.numpy()[0], 1), 0.0, atol=1e-7)
