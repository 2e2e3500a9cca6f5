"""use_ema (moving average of the weights) and gradient_accumulation_steps."""
import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.optimizers import SGD, Adam


def _steps(opt, w, gradients):
    values = []
    for g in gradients:
        opt.apply_gradients([(ops.convert_to_tensor(np.array([g], w.dtype)), w)])
        values.append(float(w.numpy()[0]))
    return values


def test_moving_average_starts_at_the_weights_then_follows_ema_momentum(backend):
    w = lamina.Variable(np.array([0.0], "float32"))
    opt = SGD(1.0, use_ema=True, ema_momentum=0.5)
    assert _steps(opt, w, [-1.0, -1.0, -1.0]) == [1.0, 2.0, 3.0]
    average = opt._model_variables_moving_average[0]
    # avg = 1 (first step copies), 0.5 * 1 + 0.5 * 2 = 1.5, 0.5 * 1.5 + 0.5 * 3 = 2.25
    np.testing.assert_allclose(average.numpy(), [2.25])
    opt.finalize_variable_values([w])
    np.testing.assert_allclose(w.numpy(), [2.25])


def test_ema_overwrite_frequency_copies_the_average_into_the_weights():
    w = lamina.Variable(np.array([0.0], "float32"))
    opt = SGD(1.0, use_ema=True, ema_momentum=0.5, ema_overwrite_frequency=2)
    # step 2: w 2, avg 1.5, overwritten -> 1.5; step 3: w 2.5, avg 2.0;
    # step 4: w 3.5, avg 0.5 * 2 + 0.5 * 3.5 = 2.75, overwritten -> 2.75
    assert _steps(opt, w, [-1.0] * 4) == [1.0, 1.5, 2.5, 2.75]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gradients_accumulate_and_apply_every_n_calls(backend, dtype):
    w = lamina.Variable(np.array([0.0], dtype), dtype=dtype)
    opt = SGD(1.0, gradient_accumulation_steps=2)
    # calls 1, 3: accumulate only; calls 2, 4: apply the mean of the last two gradients.
    assert _steps(opt, w, [1.0, 3.0, -2.0, 0.0]) == [0.0, -2.0, -2.0, -1.0]
    assert int(opt.iterations) == 2 and int(opt._iterations) == 4
    np.testing.assert_allclose(opt._accumulated_gradients[0].numpy(), [0.0])


def test_accumulated_adam_equals_adam_on_the_mean_gradient():
    w1 = lamina.Variable(np.array([1.0, -1.0], "float32"))
    w2 = lamina.Variable(np.array([1.0, -1.0], "float32"))
    accumulated = Adam(0.1, gradient_accumulation_steps=3)
    plain = Adam(0.1)
    for g in ([0.3, 0.1], [0.6, -0.4], [0.0, 0.6]):
        accumulated.apply_gradients([(ops.convert_to_tensor(np.array(g, "float32")), w1)])
    plain.apply_gradients([(ops.convert_to_tensor(np.array([0.3, 0.1], "float32")), w2)])
    np.testing.assert_allclose(w1.numpy(), w2.numpy(), rtol=1e-6)
    np.testing.assert_allclose(accumulated._momentums[0].numpy(),
                               plain._momentums[0].numpy(), rtol=1e-6)


def test_errors():
    with pytest.raises(ValueError, match=r"SGD: argument 'gradient_accumulation_steps' must "
                                         r"be None or an integer >= 2; received 1"):
        SGD(gradient_accumulation_steps=1)
    with pytest.raises(ValueError, match=r"SGD: argument 'ema_momentum' must be in "
                                         r"\[0.0, 1.0\]; received 1.5"):
        SGD(use_ema=True, ema_momentum=1.5)
    with pytest.raises(ValueError, match=r"SGD: argument 'ema_overwrite_frequency' must be "
                                         r"None or an integer >= 1; received 0"):
        SGD(use_ema=True, ema_overwrite_frequency=0)


def test_finalize_pairs_variables_by_identity():
    a = lamina.Variable([1.0, 2.0], name="a")
    b = lamina.Variable([5.0, 6.0], name="b")
    opt = SGD(0.5, use_ema=True, ema_momentum=0.5)
    opt.build([a])
    opt.apply([ops.convert_to_tensor([1.0, 1.0])], [a])     # a = [0.5, 1.5] = average
    a.assign([9.0, 9.0])
    opt.finalize_variable_values([b, a])        # b was never trained: it keeps its value
    np.testing.assert_allclose(a.numpy(), [0.5, 1.5])
    np.testing.assert_allclose(b.numpy(), [5.0, 6.0])
