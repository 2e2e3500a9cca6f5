"""LearningRateScheduler: schedule(epoch, lr) or schedule(epoch), logged rates, errors."""
import numpy as np
import pytest

from lamina import ops
from lamina.callbacks import LearningRateScheduler

from .tiny import fit, kernel, one_weight_model


def halve_after_first(epoch, lr):
    return lr if epoch < 1 else lr * 0.5


def test_two_argument_schedule_sets_the_rate_each_epoch(backend, floatx):
    model = one_weight_model(0.1)
    history = fit(model, 3, [LearningRateScheduler(halve_after_first)])
    assert history.history["learning_rate"] == pytest.approx([0.1, 0.05, 0.025], rel=1e-6)
    # w: 0 -> 0.2 (lr 0.1) -> 0.2 + 0.05·2·0.8 = 0.28 -> 0.28 + 0.025·2·0.72 = 0.316
    assert history.history["loss"] == pytest.approx([1.0, 0.64, 0.5184], rel=1e-5)
    assert kernel(model) == pytest.approx(0.316, rel=1e-5)
    assert float(model.optimizer.learning_rate.numpy()) == pytest.approx(0.025, rel=1e-6)


def test_one_argument_schedule():
    history = fit(one_weight_model(), 3, [LearningRateScheduler(lambda epoch: 0.1 /
                                                                (epoch + 1))])
    assert history.history["learning_rate"] == pytest.approx([0.1, 0.05, 0.1 / 3], rel=1e-6)


@pytest.mark.parametrize("schedule, expected", [
    (lambda epoch, lr: np.float32(0.25), 0.25),
    (lambda epoch, lr: np.float64(0.3), 0.3),
    (lambda epoch, lr: ops.multiply(ops.convert_to_tensor(lr), 0.5), 0.05),
])
def test_numpy_floats_and_scalar_tensors_are_floats(schedule, expected):
    history = fit(one_weight_model(0.1), 1, [LearningRateScheduler(schedule)])
    assert history.history["learning_rate"] == pytest.approx([expected], rel=1e-6)


def test_verbose_message(capsys):
    fit(one_weight_model(), 1, [LearningRateScheduler(lambda epoch: 0.5, verbose=1)])
    assert capsys.readouterr().out == \
        "\nEpoch 1: LearningRateScheduler setting learning rate to 0.5.\n"


@pytest.mark.parametrize("value", [1, "0.1", None, np.array([0.1, 0.2])])
def test_a_schedule_that_returns_no_float_is_a_value_error(value):
    callback = LearningRateScheduler(lambda epoch, lr: value)
    with pytest.raises(ValueError, match="LearningRateScheduler: the output of the "
                                         "`schedule` function should be a float; received "
                                         ".* for epoch 0"):
        fit(one_weight_model(), 1, [callback])


def test_errors_inside_the_schedule_are_not_hidden():
    def broken(epoch, lr):
        raise TypeError("bug in the schedule")
    with pytest.raises(TypeError, match="bug in the schedule"):
        fit(one_weight_model(), 1, [LearningRateScheduler(broken)])


def test_schedule_must_be_callable():
    with pytest.raises(TypeError, match="LearningRateScheduler: argument 'schedule' must be "
                                        "a function \\(epoch, lr\\) -> float; received 0.1"):
        LearningRateScheduler(0.1)
