import numpy as np
import pytest

from lamina import layers, ops
from tests.layers.harness import LayerCase, case_id, run_layer_case
from tests.layers.keras11.reference import check_against_keras


def _ids(rng, shape):
    return rng.integers(0, 6, shape).astype("int32")


CASES = [
    LayerCase(layers.ReversibleEmbedding, dict(input_dim=6, output_dim=3), (2, 4), (2, 4, 3),
              make_input=_ids, trainable_weights=1, weight_shapes={"embeddings": (6, 3)},
              params=18, input_dtype="int32"),
    LayerCase(layers.ReversibleEmbedding, dict(input_dim=6, output_dim=3, tie_weights=False,
                                               logit_soft_cap=3.0),
              (2, 4), (2, 4, 3), make_input=_ids, input_dtype="int32", trainable_weights=2,
              weight_shapes={"embeddings": (6, 3), "reverse_embeddings": (3, 6)}, params=36,
              check_training_step=False),      # the forward call never reads the reverse table
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_reversible_embedding_harness(case):
    run_layer_case(case)


def _both(layer, x):
    return layer(x[1]), layer(x[0], reverse=True)


def test_matches_keras():
    check_against_keras("reversible_embedding_tied", layers.ReversibleEmbedding(7, 3),
                        call=_both)
    check_against_keras("reversible_embedding_untied", layers.ReversibleEmbedding(
        7, 3, tie_weights=False, logit_soft_cap=2.0), call=_both)


def test_tied_reverse_is_the_transpose_and_masks():
    layer = layers.ReversibleEmbedding(4, 2, mask_zero=True)
    ids = ops.convert_to_tensor(np.array([[0, 1, 3]], "int32"))
    vectors = layer(ids)
    np.testing.assert_array_equal(layer.compute_mask(ids).numpy(), [[False, True, True]])
    assert layer.compute_mask(vectors) is None
    logits = layer(vectors, reverse=True).numpy()
    table = layer.embeddings.numpy()
    np.testing.assert_allclose(logits, vectors.numpy() @ table.T, rtol=1e-6)
    assert layer.compute_output_shape((1, 3, 2), reverse=True) == (1, 3, 4)

    import lamina
    hidden = layers.Input((3, 2))
    model = lamina.Model(hidden, layer(hidden, reverse=True))
    assert tuple(model.output.shape) == (None, 3, 4)
    np.testing.assert_allclose(model(vectors).numpy(), logits, rtol=1e-6)
    with pytest.raises(ValueError, match="'logit_soft_cap' must be None or a positive"):
        layers.ReversibleEmbedding(4, 2, logit_soft_cap=-1)
