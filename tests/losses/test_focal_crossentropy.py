"""Binary and categorical focal crossentropy: hand-computed values (Keras's examples), the
gamma = 0 limit, huge logits and the argument errors."""
import math

import numpy as np
import pytest

from lamina import GradientTape, ops
from lamina.losses import (BinaryFocalCrossentropy, CategoricalFocalCrossentropy,
                           binary_crossentropy, binary_focal_crossentropy,
                           categorical_crossentropy, categorical_focal_crossentropy)

Y_BIN = [[0.0, 1.0], [0.0, 0.0]]
P_BIN = [[0.6, 0.4], [0.4, 0.6]]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binary_focal_values(dtype, backend):
    y_pred = ops.convert_to_tensor(P_BIN, dtype=dtype)
    # element (0, 0): z=0, p=0.6 -> p_t = 0.4, factor 0.6**2, bce -log(0.4)
    row1 = (0.36 * -math.log(0.4) + 0.36 * -math.log(0.4)) / 2
    row2 = (0.16 * -math.log(0.6) + 0.36 * -math.log(0.4)) / 2
    out = binary_focal_crossentropy(Y_BIN, y_pred, gamma=2)
    assert out.dtype == dtype
    np.testing.assert_allclose(out.numpy(), [row1, row2], rtol=1e-6)
    assert abs(row1 - 0.32986466) < 1e-8 and abs(row2 - 0.20579838) < 1e-8
    # class balancing: weight 0.25 for z=1 and 0.75 for z=0
    balanced = binary_focal_crossentropy(Y_BIN, y_pred, apply_class_balancing=True)
    bal1 = (0.75 * 0.36 * -math.log(0.4) + 0.25 * 0.36 * -math.log(0.4)) / 2
    bal2 = 0.75 * row2          # both labels are 0
    np.testing.assert_allclose(balanced.numpy(), [bal1, bal2], rtol=1e-6)


def test_binary_focal_from_logits_matches_keras_examples():
    y_true = [0.0, 1.0, 0.0, 0.0]
    logits = [-18.6, 0.51, 2.94, -12.8]
    np.testing.assert_allclose(BinaryFocalCrossentropy(gamma=2, from_logits=True)(
        y_true, logits).numpy(), 0.6912121, rtol=1e-5)
    np.testing.assert_allclose(BinaryFocalCrossentropy(apply_class_balancing=True, gamma=2,
                                                       from_logits=True)(y_true, logits).numpy(),
                               0.5101333, rtol=1e-5)
    y2, l2 = [[0, 1], [0, 0]], [[-18.6, 0.51], [2.94, -12.8]]
    np.testing.assert_allclose(BinaryFocalCrossentropy(gamma=3, from_logits=True)(
        y2, l2, sample_weight=[0.8, 0.2]).numpy(), 0.133, atol=1e-3)
    np.testing.assert_allclose(BinaryFocalCrossentropy(gamma=4, from_logits=True,
                                                       reduction="sum")(y2, l2).numpy(),
                               1.222, atol=1e-3)


def test_gamma_zero_is_plain_binary_crossentropy():
    probs = [[0.9, 0.2], [0.3, 0.7]]
    np.testing.assert_allclose(binary_focal_crossentropy(Y_BIN, probs, gamma=0.0).numpy(),
                               binary_crossentropy(Y_BIN, probs).numpy(), rtol=1e-6)


def test_binary_focal_label_smoothing():
    # smoothing 0.2: z = 1 -> 0.9; p_t = 0.9 * 0.8 + 0.1 * 0.2 = 0.74
    bce = -(0.9 * math.log(0.8) + 0.1 * math.log(0.2))
    np.testing.assert_allclose(
        binary_focal_crossentropy([[1.0]], [[0.8]], label_smoothing=0.2).numpy(),
        [0.26 ** 2 * bce], rtol=1e-6)


def test_binary_focal_huge_logits():
    logits = ops.convert_to_tensor([[1e4, -1e4]])
    with GradientTape() as tape:
        tape.watch(logits)
        loss = binary_focal_crossentropy([[0.0, 0.0]], logits, from_logits=True)
    # element 1: wrong with certainty, factor 1, bce 1e4; element 2: right, 0
    np.testing.assert_allclose(loss.numpy(), [5e3], rtol=1e-6)
    assert np.all(np.isfinite(tape.gradient(loss, logits).numpy()))


def test_categorical_focal_values():
    y_true = [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    y_pred = [[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]]
    # 0.25 * (1 - p)**2 * -log(p) at the true class
    row1 = 0.25 * 0.05 ** 2 * -math.log(0.95)
    row2 = 0.25 * 0.9 ** 2 * -math.log(0.1)
    out = categorical_focal_crossentropy(y_true, y_pred)
    np.testing.assert_allclose(out.numpy(), [row1, row2], rtol=1e-5)
    np.testing.assert_allclose(CategoricalFocalCrossentropy()(y_true, y_pred).numpy(),
                               0.23315276, rtol=1e-5)
    np.testing.assert_allclose(CategoricalFocalCrossentropy()(
        y_true, y_pred, sample_weight=[0.3, 0.7]).numpy(), (0.3 * row1 + 0.7 * row2) / 2,
        rtol=1e-5)


def test_categorical_focal_alpha_per_class_and_gamma_zero():
    y_true = [[0.0, 1.0, 0.0]]
    y_pred = [[0.2, 0.5, 0.3]]
    out = categorical_focal_crossentropy(y_true, y_pred, alpha=[1.0, 2.0, 3.0], gamma=1.0)
    np.testing.assert_allclose(out.numpy(), [2.0 * 0.5 * -math.log(0.5)], rtol=1e-6)
    plain = categorical_focal_crossentropy(y_true, y_pred, alpha=1.0, gamma=0.0)
    np.testing.assert_allclose(plain.numpy(), categorical_crossentropy(y_true, y_pred).numpy(),
                               rtol=1e-6)


def test_categorical_focal_from_logits():
    logits = np.array([[1.0, 2.0, 0.5]])
    p = np.exp(logits) / np.exp(logits).sum()
    expected = 0.25 * (1 - p[0, 1]) ** 2 * -np.log(p[0, 1])
    out = categorical_focal_crossentropy([[0, 1, 0]], logits, from_logits=True)
    np.testing.assert_allclose(out.numpy(), [expected], rtol=1e-10)
    huge = categorical_focal_crossentropy([[0, 1, 0]], [[1e4, -1e4, 0.0]], from_logits=True)
    np.testing.assert_allclose(huge.numpy(), [0.25 * 2e4], rtol=1e-5)


def test_argument_errors():
    with pytest.raises(ValueError, match=r"BinaryFocalCrossentropy: argument 'alpha' must be a "
                                         r"number in \[0, 1\]; received 1.5"):
        BinaryFocalCrossentropy(alpha=1.5)
    with pytest.raises(ValueError, match="CategoricalFocalCrossentropy: argument 'gamma' must "
                                         "be a number >= 0; received -1.0"):
        CategoricalFocalCrossentropy(gamma=-1)
    with pytest.raises(TypeError, match="binary_focal_crossentropy: argument "
                                        "'apply_class_balancing' must be True or False"):
        binary_focal_crossentropy([1.0], [0.5], apply_class_balancing=None)
    with pytest.raises(ValueError, match=r"categorical_focal_crossentropy: argument 'alpha' must "
                                         r"have one weight per class \(3\); received 2 weights"):
        categorical_focal_crossentropy([[0, 1, 0]], [[0.2, 0.5, 0.3]], alpha=[0.5, 0.5])
    with pytest.raises(TypeError, match="CategoricalFocalCrossentropy: argument 'alpha' must "
                                        "be a number; received 'a'"):
        CategoricalFocalCrossentropy(alpha=["a"])
