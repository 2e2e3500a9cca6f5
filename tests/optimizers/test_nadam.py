"""Nadam: the momentum cache u_t, a first step by hand and golden values."""
import numpy as np
import pytest

from lamina.optimizers import Nadam

from .helpers import check_golden, one_step


def test_defaults_match_keras():
    opt = Nadam()
    assert (opt.beta_1, opt.beta_2, opt.epsilon, opt.name) == (0.9, 0.999, 1e-7, "nadam")


def test_first_step_by_hand(backend):
    # u_1 = 0.9 (1 - 0.5 * 0.96) = 0.468, u_2 = 0.9 (1 - 0.5 * 0.9216) = 0.48528
    # u_product = 0.468; m = 0.1 g; v_hat = 0.001 g^2 / 0.001 = g^2
    # m_hat = 0.48528 * 0.1 g / (1 - 0.468 * 0.48528) + (1 - 0.468) g / (1 - 0.468)
    g = 0.5
    m_hat = 0.48528 * 0.1 * g / (1 - 0.468 * 0.48528) + g
    expected = 1.0 - 0.1 * m_hat / (abs(g) + 1e-7)
    assert expected == pytest.approx(0.8937212, abs=1e-6)
    opt = Nadam(0.1)
    np.testing.assert_allclose(one_step(opt, [1.0], [g]), [expected], rtol=1e-6)
    np.testing.assert_allclose(opt._u_product.numpy(), 0.468, rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("hp", [{}, {"beta_1": 0.8, "beta_2": 0.99, "epsilon": 1e-4}])
def test_five_steps_match_keras_formula(backend, dtype, hp):
    opt = Nadam(0.05, **hp)
    check_golden(opt, "Nadam", dtype, **hp)
    assert opt._u_product.dtype == dtype
