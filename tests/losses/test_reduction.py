"""Reductions, sample weights and masks (Keras 3's rules), with hand-computed values."""
import numpy as np
import pytest

from lamina import ops
from lamina.errors import ShapeError
from lamina.graph import SymbolicTensor
from lamina.losses import Loss, MeanSquaredError, squeeze_or_expand_to_same_rank
from lamina.losses.reduction import divide_no_nan, reduce_weighted_values


class SquaredError(Loss):
    """Keras's ExampleLoss: one value per element, no reduction inside."""

    def call(self, y_true, y_pred):
        return ops.square(ops.subtract(y_true, y_pred))


Y_TRUE = [1.0, 0.0, 1.0, 0.0]
Y_PRED = [0.1, 0.2, 0.3, 0.4]
# squared errors: 0.81, 0.04, 0.49, 0.16 (sum 1.5)
WEIGHTS = [0.4, 0.3, 0.2, 0.1]
# weighted: 0.324, 0.012, 0.098, 0.016 (sum 0.45)


@pytest.mark.parametrize("reduction, expected", [
    ("sum", 1.5), ("sum_over_batch_size", 0.375), ("mean", 0.375),
    ("mean_with_sample_weight", 0.375)])
def test_reductions_without_weights(reduction, expected, backend):
    loss = SquaredError(reduction=reduction)(Y_TRUE, Y_PRED)
    assert loss.shape == () and loss.dtype == "float32" and loss.backend is backend
    np.testing.assert_allclose(loss.numpy(), expected, rtol=1e-6)


@pytest.mark.parametrize("reduction", [None, "none"])
def test_no_reduction_returns_the_weighted_values(reduction):
    loss = SquaredError(reduction=reduction)(Y_TRUE, Y_PRED, sample_weight=WEIGHTS)
    np.testing.assert_allclose(loss.numpy(), [0.324, 0.012, 0.098, 0.016], rtol=1e-6)


@pytest.mark.parametrize("reduction, expected", [
    ("sum", 0.45),
    ("sum_over_batch_size", 0.1125),          # divided by the 4 values, not by sum(w) = 1
    ("mean", 0.1125),
    ("mean_with_sample_weight", 0.45)])       # divided by sum(w) = 1.0
def test_reductions_with_sample_weight(reduction, expected):
    loss = SquaredError(reduction=reduction, dtype="float64")(Y_TRUE, Y_PRED, WEIGHTS)
    assert loss.dtype == "float64"
    np.testing.assert_allclose(loss.numpy(), expected, rtol=1e-12)


def test_mean_with_sample_weight_divides_by_the_weight_sum():
    loss = SquaredError(reduction="mean_with_sample_weight")
    np.testing.assert_allclose(loss(Y_TRUE, Y_PRED, [2.0, 0.0, 0.0, 0.0]).numpy(), 0.81,
                               rtol=1e-6)


def test_zero_weights_give_zero_not_nan():
    for reduction in ("sum_over_batch_size", "mean_with_sample_weight"):
        loss = SquaredError(reduction=reduction)(Y_TRUE, Y_PRED, [0.0] * 4)
        assert loss.numpy() == 0.0


def test_per_sample_weights_broadcast_over_timesteps():
    # losses (2, 3): [[1, 4, 9], [1, 1, 1]]; weights (2,) -> each row scaled
    y_true = np.zeros((2, 3))
    y_pred = np.array([[1.0, 2.0, 3.0], [1.0, -1.0, 1.0]])
    loss = SquaredError(reduction="sum")(y_true, y_pred, sample_weight=[1.0, 10.0])
    np.testing.assert_allclose(loss.numpy(), 14.0 + 30.0, rtol=1e-6)
    per_step = SquaredError(reduction="sum_over_batch_size")(y_true, y_pred, [[1, 0, 0],
                                                                               [0, 0, 2]])
    np.testing.assert_allclose(per_step.numpy(), (1.0 + 2.0) / 6, rtol=1e-6)
    weighted_mean = SquaredError(reduction="mean_with_sample_weight")(y_true, y_pred,
                                                                      [1.0, 3.0])
    np.testing.assert_allclose(weighted_mean.numpy(), (14 + 9) / (3 + 9), rtol=1e-6)


def test_rank_matching_of_weights():
    mse = MeanSquaredError(reduction="none")
    # (batch, 1) weights meet (batch,) losses; (batch,) labels meet (batch, 1) predictions
    out = mse([[1.0], [2.0]], [[0.0], [0.0]], sample_weight=[[2.0], [0.5]])
    np.testing.assert_allclose(out.numpy(), [[2.0], [2.0]], rtol=1e-6)      # Keras: (2, 1)
    out = mse([1.0, 2.0], [[0.0], [0.0]])
    np.testing.assert_allclose(out.numpy(), [1.0, 4.0], rtol=1e-6)
    a, b = squeeze_or_expand_to_same_rank(ops.ones((3, 2)), ops.ones((3, 2, 1)))
    assert a.shape == b.shape == (3, 2)
    a, b = squeeze_or_expand_to_same_rank(ops.ones((3,)), ops.ones((3, 1)))
    assert a.shape == b.shape == (3, 1)


def test_scalar_weight_scales_everything():
    loss = SquaredError()(Y_TRUE, Y_PRED, sample_weight=2.0)
    np.testing.assert_allclose(loss.numpy(), 0.75, rtol=1e-6)


def test_mask_on_y_pred_averages_over_the_valid_values():
    y_pred = ops.convert_to_tensor(Y_PRED)
    y_pred._keras_mask = ops.convert_to_tensor([True, False, True, True])
    # valid squared errors 0.81, 0.49, 0.16: mean 1.46 / 3
    np.testing.assert_allclose(SquaredError()(Y_TRUE, y_pred).numpy(), 1.46 / 3, rtol=1e-6)
    np.testing.assert_allclose(SquaredError(reduction="sum")(Y_TRUE, y_pred).numpy(), 1.46,
                               rtol=1e-6)
    # with weights: (0.324 + 0.098 + 0.016) / 3
    np.testing.assert_allclose(SquaredError()(Y_TRUE, y_pred, WEIGHTS).numpy(), 0.438 / 3,
                               rtol=1e-6)
    y_pred._keras_mask = ops.convert_to_tensor([False] * 4)
    assert SquaredError()(Y_TRUE, y_pred).numpy() == 0.0       # everything masked: 0, no NaN


def test_mask_and_per_sample_weights_of_a_sequence():
    # (2, 2) losses [[1, 4], [9, 16]], mask drops the last step of row 1, weights (2,)
    y_pred = ops.convert_to_tensor([[1.0, 2.0], [3.0, 4.0]])
    y_pred._keras_mask = ops.convert_to_tensor([[True, True], [True, False]])
    loss = SquaredError()(np.zeros((2, 2)), y_pred, sample_weight=[1.0, 2.0])
    np.testing.assert_allclose(loss.numpy(), (1 + 4 + 18) / 3, rtol=1e-6)


def test_mixed_dtypes_follow_the_loss_dtype():
    loss = SquaredError()(np.array([1, 0, 1, 0], dtype="int32"),
                          np.array(Y_PRED, dtype="float32"),
                          sample_weight=np.array(WEIGHTS, dtype="float64"))
    assert loss.dtype == "float32"
    np.testing.assert_allclose(loss.numpy(), 0.1125, rtol=1e-6)


def test_symbolic_losses_reduce_with_unknown_batch_size():
    y = SymbolicTensor((None, 3), "float32")
    out = MeanSquaredError()(y, y, sample_weight=SymbolicTensor((None,), "float32"))
    assert isinstance(out, SymbolicTensor) and out.shape == () and out.dtype == "float32"


def test_divide_no_nan():
    out = divide_no_nan(ops.convert_to_tensor([1.0, 2.0]), ops.convert_to_tensor([0.0, 4.0]))
    np.testing.assert_array_equal(out.numpy(), [0.0, 0.5])


def test_weights_that_do_not_broadcast_are_an_error():
    with pytest.raises(ShapeError, match=r"SquaredError: sample_weight of shape \(3,\) does "
                                         r"not broadcast to the per-sample losses of shape "
                                         r"\(4,\)"):
        SquaredError()(Y_TRUE, Y_PRED, sample_weight=[1.0, 2.0, 3.0])
    with pytest.raises(ShapeError, match=r"sample_weight of shape \(2, 3\) does not "
                                         r"broadcast to the per-sample losses of shape \(2,\)"):
        MeanSquaredError()(np.zeros((2, 3)), np.zeros((2, 3)), sample_weight=np.ones((2, 3)))


def test_invalid_reduction():
    # Keras's phrase ("Invalid value for argument `reduction`"), then the choices.
    with pytest.raises(ValueError, match="MeanSquaredError: Invalid value for argument "
                                         "`reduction`: it must be one of "
                                         "'sum_over_batch_size', 'sum', 'mean', "
                                         "'mean_with_sample_weight', 'none' or None; "
                                         "received 'avg'"):
        MeanSquaredError(reduction="avg")
    with pytest.raises(ValueError, match="loss: Invalid value for argument `reduction`"):
        reduce_weighted_values(ops.ones((2,)), reduction="auto")
