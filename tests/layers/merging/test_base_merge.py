"""What every merge layer shares (tested through Add): input checks, Keras's broadcasting
of shapes and ranks, and the OR of the input masks."""
import numpy as np
import pytest

import lamina
from lamina import layers, ops
from tests.layers.merging.masking import X1, X1_MASK, X2, X2_MASK, masked, output_mask


def _x(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype("float32")


def test_broadcasts_size_one_axes(backend):
    a, b = _x(2, 3, 4), _x(2, 1, 4, seed=1)
    np.testing.assert_allclose(layers.Add()([a, b]).numpy(), a + b, rtol=1e-6)


def test_lower_rank_input_gets_unit_axes_after_the_batch(backend):
    # Keras expands a (batch, 4) input to (batch, 1, 4), not numpy's (1, batch, 4)
    a, b = _x(2, 4), _x(2, 3, 4, seed=1)
    np.testing.assert_allclose(layers.Add()([a, b]).numpy(), a[:, None, :] + b, rtol=1e-6)


def test_single_input_list_is_accepted(backend):
    a = _x(2, 3)
    np.testing.assert_array_equal(layers.Add()([a]).numpy(), a)


def test_symbolic_shapes():
    a, b = lamina.layers.Input(shape=(3, 4)), lamina.layers.Input(shape=(1, 4))
    assert layers.Add()([a, b]).shape == (None, 3, 4)
    assert layers.Maximum().compute_output_shape([(None, 3, 4), (None, 4)]) == (None, 3, 4)


def test_output_mask_is_the_or_of_the_masks(backend):
    out = layers.Add()([masked(X1, X1_MASK), masked(X2, X2_MASK)])
    np.testing.assert_array_equal(output_mask(out), [[False, True, True, True]])


def test_no_output_mask_when_an_input_has_none(backend):
    assert output_mask(layers.Add()([masked(X1, X1_MASK), masked(X2)])) is None
    assert layers.Add().compute_mask([masked(X1), masked(X2)], [None, None]) is None


def test_rejects_a_single_tensor():
    with pytest.raises(ValueError, match=r"merge_x: a merge layer is called on a list of "
                                         r"tensors; received one tensor of shape \(2, 3\)"):
        layers.Add(name="merge_x")(np.zeros((2, 3), "float32"))


def test_rejects_a_single_tensor_after_build():
    layer = layers.Add(name="merge_y")
    layer([np.zeros((2, 3), "float32")] * 2)
    with pytest.raises(ValueError, match=r"merge_y: a merge layer is called on a list of "
                                         r"tensors; received one tensor of shape \(2, 3\)"):
        layer(ops.zeros((2, 3)))


def test_rejects_an_empty_list():
    with pytest.raises(ValueError, match=r"`Add` layer should be called on a list of at "
                                         r"least 1 inputs; received 0"):
        layers.Add()([])


def test_rejects_different_batch_sizes():
    with pytest.raises(ValueError, match=r"add_b: inputs must have one batch size; received "
                                         r"shapes \(2, 3\), \(4, 3\)"):
        layers.Add(name="add_b")([np.zeros((2, 3), "float32"), np.zeros((4, 3), "float32")])


def test_rejects_incompatible_shapes():
    with pytest.raises(ValueError, match=r"add_s: inputs have incompatible shapes \(axis -1 "
                                         r"has sizes \[3, 4\], batch excluded\); received "
                                         r"shapes \(2, 5, 3\), \(2, 5, 4\)"):
        layers.Add(name="add_s")([np.zeros((2, 5, 3), "float32"),
                                  np.zeros((2, 5, 4), "float32")])


def test_rejects_incompatible_shapes_symbolically():
    a, b = lamina.layers.Input(shape=(3,)), lamina.layers.Input(shape=(4,))
    with pytest.raises(ValueError, match=r"received shapes \(None, 3\), \(None, 4\)"):
        layers.Multiply()([a, b])


def test_compute_mask_rejects_mismatched_lists():
    layer = layers.Add(name="add_m")
    x = [masked(X1), masked(X2)]
    with pytest.raises(ValueError, match=r"add_m: compute_mask expects a list with one mask "
                                         r"\(or None\) per input \(the lists `inputs` and "
                                         r"`mask` should have the same length\); received 1 "
                                         r"masks for 2 inputs"):
        layer.compute_mask(x, [None])
    with pytest.raises(ValueError, match=r"\(`mask` should be a list\); received Tensor for "
                                         r"2 inputs"):
        layer.compute_mask(x, masked(X1_MASK))
