"""Lion: a step by hand (sign of the interpolated momentum) and golden values."""
import numpy as np
import pytest

from lamina import ops
from lamina.optimizers import Lion

from .helpers import check_golden, one_step


def test_defaults_match_keras():
    opt = Lion()
    assert (opt.beta_1, opt.beta_2, opt.name) == (0.9, 0.99, "lion")


def test_two_steps_by_hand(backend):
    opt = Lion(0.1)
    # m = 0: w -= 0.1 * sign(0.1 g); then m = 0.01 g = [0.03, -0.002]
    w = one_step(opt, [1.0, 1.0], [3.0, -0.2])
    np.testing.assert_allclose(w, [0.9, 1.1], rtol=1e-6)
    np.testing.assert_allclose(opt._momentums[0].numpy(), [0.03, -0.002], rtol=1e-6)
    # sign(0.9 m + 0.1 g) with g = [-0.1, 0.1]: [0.027 - 0.01, -0.0018 + 0.01] -> [+, +]
    variable = opt._trainable_variables[0]
    opt.apply_gradients([(ops.convert_to_tensor(np.array([-0.1, 0.1], "float32")), variable)])
    np.testing.assert_allclose(variable.numpy(), [0.8, 1.0], rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("hp", [{}, {"beta_1": 0.5, "beta_2": 0.9}])
def test_five_steps_match_keras_formula(backend, dtype, hp):
    check_golden(Lion(0.05, **hp), "Lion", dtype, **hp)


def test_beta_1_zero_is_rejected_as_in_keras():
    # Keras's text (its [0, 1] names the range it checks, 0 excluded), with the exact rule
    for bad in (0, -0.1, 1.1):
        with pytest.raises(ValueError, match=r"Lion: Argument `beta_1` must be in the \[0, 1\] "
                           r"range\. Otherwise, the optimizer degenerates to SignSGD\. "
                           rf"Received: beta_1={bad} \(beta_1 must be > 0 and <= 1\)"):
            Lion(beta_1=bad)
    assert Lion(beta_1=1.0).beta_1 == 1.0
