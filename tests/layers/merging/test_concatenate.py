import numpy as np
import pytest

import lamina
from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case
from tests.layers.merging.masking import X1, X1_MASK, X2, masked, output_mask

CASES = [
    LayerCase(layers.Concatenate, {}, [(2, 3), (2, 3)], (2, 6), trainable_weights=0,
              params=0, weight_shapes={}),
    LayerCase(layers.Concatenate, dict(axis=1), [(2, 3, 4), (2, 2, 4), (2, 1, 4)], (2, 6, 4),
              trainable_weights=0, params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_concatenate_harness(case, backend):
    run_layer_case(case)


def test_concatenate_matches_numpy(backend):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3, 4)).astype("float32"), \
        rng.standard_normal((2, 3, 2)).astype("float32")
    np.testing.assert_array_equal(layers.Concatenate()([a, b]).numpy(),
                                  np.concatenate([a, b], axis=-1))
    np.testing.assert_array_equal(layers.concatenate([a, a], axis=1).numpy(),
                                  np.concatenate([a, a], axis=1))


def test_concatenate_masks(backend):
    # Keras 3's merging_test.test_concatenate_with_mask: an unmasked input counts as valid
    out = layers.Concatenate(axis=1)([masked(X1, X1_MASK), masked(X2)])
    np.testing.assert_allclose(out.numpy()[0], np.concatenate([X1[0], X2[0]]))
    np.testing.assert_array_equal(output_mask(out), [[0, 1, 0, 1, 1, 1, 1, 1]])
    out = layers.Concatenate(axis=2)([masked(X1, X1_MASK), masked(X2)])
    np.testing.assert_array_equal(output_mask(out), [[1, 1, 1, 1]])
    assert output_mask(layers.Concatenate()([masked(X1), masked(X2)])) is None


def test_concatenate_symbolic_shape():
    a, b = lamina.layers.Input(shape=(3, 4)), lamina.layers.Input(shape=(3, 5))
    assert layers.Concatenate()([a, b]).shape == (None, 3, 9)


def test_concatenate_rejects_mismatched_shapes():
    with pytest.raises(ValueError, match=r"cat: a `Concatenate` layer requires inputs "
                                         r"with matching shapes except for the "
                                         r"concatenation axis \(-1\); received shapes "
                                         r"\(1, 2, 5\), \(1, 1, 4\)"):
        layers.Concatenate(name="cat")([np.ones((1, 2, 5), "float32"),
                                        np.ones((1, 1, 4), "float32")])


def test_concatenate_rejects_mixed_ranks():
    with pytest.raises(ValueError, match=r"inputs must all have one rank; received shapes "
                                         r"\(2, 3\), \(2, 3, 1\)"):
        layers.Concatenate()([np.ones((2, 3), "float32"), np.ones((2, 3, 1), "float32")])


def test_concatenate_rejects_axis_out_of_range():
    with pytest.raises(ValueError, match=r"argument 'axis' 3 is out of range for inputs of "
                                         r"rank 2"):
        layers.Concatenate(axis=3)([np.ones((2, 3), "float32")] * 2)


def test_concatenate_rejects_non_int_axis():
    with pytest.raises(ValueError, match=r"argument 'axis' must be an int; received '1'"):
        layers.Concatenate(axis="1")


def test_concatenate_mask_in_a_functional_model_with_unknown_batch():
    """Keras's test_concatenate_with_mask_symbolic: the masks of inputs whose batch size is
    None are broadcast without recording a shape holding None."""
    from lamina import models, ops
    input1, input2 = layers.Input((4, 2)), layers.Input((4, 2))
    output = layers.Concatenate(axis=1)([layers.Masking()(input1), input2])
    model = models.Model([input1, input2], output._keras_mask)
    x1 = np.array([[[0, 0], [1, 2], [0, 0], [3, 4]]], "float32")
    x2 = np.array([[[0, 0], [0, 0], [1, 2], [3, 4]]], "float32")
    np.testing.assert_array_equal(ops.convert_to_numpy(model([x1, x2])),
                                  [[0, 1, 0, 1, 1, 1, 1, 1]])


def test_concrete_masks_of_symbolic_inputs_give_a_concrete_mask():
    # Keras's test_correctness_dynamic: compute_mask([Input, Input], [Variable, Variable])
    from lamina import ops
    a, b = layers.Input((4, 5)), layers.Input((4, 5))
    m1 = np.ones((2, 4, 5), "float32")
    m2 = np.zeros((2, 4, 5), "float32")
    m2[0, 1] = 1.0
    out = layers.Concatenate(axis=1).compute_mask(
        [a, b], [lamina.Variable(m1), lamina.Variable(m2)])
    want = np.concatenate([np.ones((2, 4), bool), np.zeros((2, 4), bool)], axis=1)
    want[0, 5] = True
    np.testing.assert_array_equal(ops.convert_to_numpy(out), want)
