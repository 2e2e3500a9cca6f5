"""Categorical, sparse categorical and binary crossentropy: hand-computed values, weights,
reductions, label smoothing, huge logits and the errors."""
import math

import numpy as np
import pytest

from lamina import GradientTape, ops
from lamina.errors import ShapeError
from lamina.graph import SymbolicTensor
from lamina.losses import (BinaryCrossentropy, CategoricalCrossentropy,
                           SparseCategoricalCrossentropy, binary_crossentropy,
                           categorical_crossentropy, sparse_categorical_crossentropy)

ONE_HOT = [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
LABELS = [1, 2]
PROBS = [[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]]
# -log(0.95) and -log(0.1)
PER_SAMPLE = [0.05129329438755058, 2.302585092994046]
DTYPES = ["float32", "float64"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_categorical_values(dtype, backend):
    y_pred = ops.convert_to_tensor(PROBS, dtype=dtype)
    out = categorical_crossentropy(ONE_HOT, y_pred)
    assert out.dtype == dtype and out.backend is backend
    np.testing.assert_allclose(out.numpy(), PER_SAMPLE, rtol=1e-6)
    loss = CategoricalCrossentropy(dtype=dtype)
    np.testing.assert_allclose(loss(ONE_HOT, y_pred).numpy(), 1.1769392, rtol=1e-6)
    # weights (0.3, 0.7): (0.3 * 0.0513 + 0.7 * 2.3026) / 2
    np.testing.assert_allclose(loss(ONE_HOT, y_pred, sample_weight=[0.3, 0.7]).numpy(),
                               0.81359889, rtol=1e-6)
    np.testing.assert_allclose(CategoricalCrossentropy(reduction="sum")(ONE_HOT, PROBS).numpy(),
                               2.3538784, rtol=1e-6)
    np.testing.assert_allclose(CategoricalCrossentropy(reduction=None)(ONE_HOT, PROBS).numpy(),
                               PER_SAMPLE, rtol=1e-6)


def test_probabilities_are_normalized_and_clipped():
    # [2, 6, 2] is read as [0.2, 0.6, 0.2]
    np.testing.assert_allclose(categorical_crossentropy([[0, 1, 0]], [[2.0, 6.0, 2.0]]).numpy(),
                               [-math.log(0.6)], rtol=1e-6)
    # a perfect prediction costs -log(1 - 1e-7) (about 1.19e-7 in float32), never 0
    perfect = categorical_crossentropy([[0.0, 1.0]], [[0.0, 1.0]])
    np.testing.assert_allclose(perfect.numpy(), [1.1920929e-07], rtol=1e-3)
    # a certain wrong answer costs -log(1e-7) = 16.118, never inf
    np.testing.assert_allclose(categorical_crossentropy([[1.0, 0.0]], [[0.0, 1.0]]).numpy(),
                               [16.118095], rtol=1e-6)


def test_categorical_label_smoothing():
    # labels [0, 1, 0] smoothed with 0.1 over 3 classes: [1/30, 0.9 + 1/30, 1/30]
    expected = -(math.log(0.2) / 30 + (0.9 + 1 / 30) * math.log(0.7) + math.log(0.1) / 30)
    assert abs(expected - 0.46329738) < 1e-8
    out = CategoricalCrossentropy(label_smoothing=0.1, dtype="float64")([[0, 1, 0]],
                                                                        [[0.2, 0.7, 0.1]])
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)


def test_categorical_from_logits_and_axis():
    logits = np.array([[1.0, 2.0, 3.0]])
    log_softmax = logits - np.log(np.exp(logits).sum())
    out = categorical_crossentropy([[0, 0, 1]], logits, from_logits=True)
    np.testing.assert_allclose(out.numpy(), [-log_softmax[0, 2]], rtol=1e-12)
    # classes on axis 0: the same numbers transposed
    by_column = categorical_crossentropy(np.array(ONE_HOT).T, np.array(PROBS).T, axis=0)
    np.testing.assert_allclose(by_column.numpy(), PER_SAMPLE, rtol=1e-12)


def test_huge_logits_give_finite_losses_and_exact_gradients():
    logits = ops.convert_to_tensor([[1e4, -1e4, 0.0], [-1e4, 1e4, 0.0]])
    with GradientTape() as tape:
        tape.watch(logits)
        loss = ops.sum(categorical_crossentropy([[1, 0, 0], [1, 0, 0]], logits,
                                                from_logits=True))
    # row 1 is right with certainty (0); row 2 is wrong by 2e4 logits
    np.testing.assert_allclose(loss.numpy(), 2e4, rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(loss, logits).numpy(),
                               [[0, 0, 0], [-1, 1, 0]], atol=1e-6)
    with GradientTape() as tape:
        tape.watch(logits)
        sparse = ops.sum(sparse_categorical_crossentropy([0, 0], logits, from_logits=True))
    np.testing.assert_allclose(sparse.numpy(), 2e4, rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(sparse, logits).numpy(), [[0, 0, 0], [-1, 1, 0]],
                               atol=1e-6)


@pytest.mark.parametrize("dtype", DTYPES)
def test_sparse_values_match_one_hot(dtype, backend):
    out = sparse_categorical_crossentropy(LABELS, ops.convert_to_tensor(PROBS, dtype=dtype))
    assert out.dtype == dtype and out.shape == (2,)
    np.testing.assert_allclose(out.numpy(), PER_SAMPLE, rtol=1e-6)
    loss = SparseCategoricalCrossentropy(dtype=dtype)
    np.testing.assert_allclose(loss([[1], [2]], PROBS).numpy(), 1.1769392, rtol=1e-6)
    np.testing.assert_allclose(loss(np.array(LABELS), PROBS, [0.3, 0.7]).numpy(), 0.81359889,
                               rtol=1e-6)


def test_sparse_on_sequences_and_other_axes():
    probs = np.array([[[0.2, 0.8], [0.6, 0.4], [0.5, 0.5]]])     # (1, 3 steps, 2 classes)
    out = sparse_categorical_crossentropy([[1, 0, 1]], probs)
    np.testing.assert_allclose(out.numpy(), [[-math.log(0.8), -math.log(0.6), math.log(2)]],
                               rtol=1e-12)
    channels_first = sparse_categorical_crossentropy([[1, 0, 1]], probs.transpose(0, 2, 1),
                                                     axis=1)
    np.testing.assert_allclose(channels_first.numpy(), out.numpy(), rtol=1e-12)


def test_sparse_ignore_class_masks_the_average():
    probs = [[0.05, 0.95, 0.0], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]]
    labels = [1, 2, -1]
    per_sample = sparse_categorical_crossentropy(labels, probs, ignore_class=-1)
    np.testing.assert_allclose(per_sample.numpy(), PER_SAMPLE + [0.0], rtol=1e-6)
    # the average is over the two valid labels, not over 3
    loss = SparseCategoricalCrossentropy(ignore_class=-1)
    np.testing.assert_allclose(loss(labels, probs).numpy(), 1.1769392, rtol=1e-6)
    np.testing.assert_allclose(SparseCategoricalCrossentropy(ignore_class=255)(
        [1, 2, 255], probs).numpy(), 1.1769392, rtol=1e-6)


def test_sparse_labels_out_of_range_are_errors():
    with pytest.raises(ValueError, match=r"sparse_categorical_crossentropy: y_true holds the "
                                         r"label 3, outside the valid range \[0, 3\) for "
                                         r"y_pred with 3 classes on axis -1"):
        sparse_categorical_crossentropy([1, 3], PROBS)
    with pytest.raises(ValueError, match=r"label -1, outside the valid range \[0, 3\).*pass "
                                         r"ignore_class=<that label>"):
        SparseCategoricalCrossentropy()([1, -1], PROBS)
    with pytest.raises(ValueError, match="label 7"):
        sparse_categorical_crossentropy([1, 7, -1], PROBS + [[0.2, 0.2, 0.6]], ignore_class=-1)


def test_sparse_symbolic_path_has_no_value_check():
    out = sparse_categorical_crossentropy(SymbolicTensor((None,), "int32"),
                                          SymbolicTensor((None, 4), "float32"))
    assert isinstance(out, SymbolicTensor) and out.shape == (None,)


def test_sparse_label_shape_errors():
    with pytest.raises(ShapeError, match=r"sparse_categorical_crossentropy: y_true must hold "
                                         r"one integer label per sample, with shape \(2,\) "
                                         r".*received y_true.shape=\(2, 3\) and "
                                         r"y_pred.shape=\(2, 3\) \(one-hot labels need "
                                         r"categorical_crossentropy\)"):
        sparse_categorical_crossentropy(ONE_HOT, PROBS)
    with pytest.raises(ShapeError, match=r"with shape \(2,\).*received y_true.shape=\(3,\)"):
        sparse_categorical_crossentropy([0, 1, 2], PROBS)


@pytest.mark.parametrize("dtype", DTYPES)
def test_binary_values(dtype, backend):
    y_true = [[0.0, 1.0], [0.0, 0.0]]
    y_pred = ops.convert_to_tensor([[0.6, 0.4], [0.4, 0.6]], dtype=dtype)
    # row 1: (-log 0.4 - log 0.4) / 2; row 2: (-log 0.6 - log 0.4) / 2
    expected = [-math.log(0.4), -(math.log(0.6) + math.log(0.4)) / 2]
    out = binary_crossentropy(y_true, y_pred)
    assert out.dtype == dtype
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(BinaryCrossentropy(reduction="sum")(y_true, y_pred).numpy(),
                               sum(expected), rtol=1e-6)
    # the certain wrong answer: BCE(1, 0) = -log(1e-7)
    np.testing.assert_allclose(binary_crossentropy([1.0], [0.0]).numpy(), 16.118095, rtol=1e-6)


def test_binary_from_logits_matches_keras_example():
    y_true = [[0, 1], [0, 0]]
    logits = [[-18.6, 0.51], [2.94, -12.8]]
    loss = BinaryCrossentropy(from_logits=True)
    np.testing.assert_allclose(loss(y_true, logits).numpy(), 0.865458, rtol=1e-5)
    np.testing.assert_allclose(loss(y_true, logits, sample_weight=[0.8, 0.2]).numpy(),
                               0.2436386, rtol=1e-5)
    np.testing.assert_allclose(BinaryCrossentropy(from_logits=True, reduction=None)(
        y_true, logits).numpy(), [0.23515666, 1.4957594], rtol=1e-5)


def test_binary_huge_logits_and_zero_logits():
    logits = ops.convert_to_tensor([1e4, -1e4, 1e4, 0.0])
    labels = [1.0, 1.0, 0.0, 1.0]
    with GradientTape() as tape:
        tape.watch(logits)
        per_element = binary_crossentropy(ops.reshape(labels, (4, 1)),
                                          ops.reshape(logits, (4, 1)), from_logits=True)
        total = ops.sum(per_element)
    np.testing.assert_allclose(per_element.numpy(), [0.0, 1e4, 1e4, math.log(2)], rtol=1e-6)
    # d/dx = sigmoid(x) - z: 0, -1, 1 and exactly -0.5 at a logit of 0
    np.testing.assert_allclose(tape.gradient(total, logits).numpy(), [0.0, -1.0, 1.0, -0.5],
                               atol=1e-7)


def test_binary_label_smoothing_and_rank_matching():
    # labels 1 -> 0.9 and 0 -> 0.1 with smoothing 0.2
    out = binary_crossentropy([[1.0, 0.0]], [[0.6, 0.4]], label_smoothing=0.2)
    np.testing.assert_allclose(out.numpy(), [-(0.9 * math.log(0.6) + 0.1 * math.log(0.4))],
                               rtol=1e-6)
    # (batch,) labels with (batch, 1) predictions
    np.testing.assert_allclose(BinaryCrossentropy()([1.0, 0.0], [[0.5], [0.5]]).numpy(),
                               math.log(2), rtol=1e-6)


def test_shape_mismatches_name_the_loss_and_both_shapes():
    with pytest.raises(ShapeError, match=r"categorical_crossentropy: y_true and y_pred must "
                                         r"have the same shape; received y_true.shape=\(2, 1\) "
                                         r"and y_pred.shape=\(2, 3\) \(integer class labels "
                                         r"need sparse_categorical_crossentropy\)"):
        CategoricalCrossentropy()([[1], [2]], PROBS)
    with pytest.raises(ShapeError, match=r"binary_crossentropy: y_true and y_pred must have "
                                         r"the same shape; received y_true.shape=\(2, 2\) and "
                                         r"y_pred.shape=\(2, 3\)"):
        binary_crossentropy(np.zeros((2, 2)), np.full((2, 3), 0.5))
    with pytest.raises(ShapeError, match=r"categorical_crossentropy: argument 'axis'=2 is out "
                                         r"of range for y_pred of shape \(2, 3\)"):
        categorical_crossentropy(ONE_HOT, PROBS, axis=2)


def test_single_class_warning():
    with pytest.warns(UserWarning, match="categorical_crossentropy: y_pred has a single class"):
        categorical_crossentropy([[1.0]], [[1.0]])


def test_argument_errors():
    with pytest.raises(TypeError, match="CategoricalCrossentropy: argument 'from_logits' must "
                                        "be True or False; received 'yes'"):
        CategoricalCrossentropy(from_logits="yes")
    with pytest.raises(ValueError, match=r"BinaryCrossentropy: argument 'label_smoothing' must "
                                         r"be a number in \[0, 1\]; received 1.5"):
        BinaryCrossentropy(label_smoothing=1.5)
    with pytest.raises(TypeError, match="binary_crossentropy: argument 'label_smoothing' must "
                                        "be a number; received None"):
        binary_crossentropy([1.0], [0.5], label_smoothing=None)
    with pytest.raises(TypeError, match="SparseCategoricalCrossentropy: argument "
                                        "'ignore_class' must be an int or None; received 1.5"):
        SparseCategoricalCrossentropy(ignore_class=1.5)
    with pytest.raises(TypeError, match="categorical_crossentropy: argument 'axis' must be an "
                                        "int; received True"):
        categorical_crossentropy(ONE_HOT, PROBS, axis=True)
