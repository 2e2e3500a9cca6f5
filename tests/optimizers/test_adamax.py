"""Adamax: a first step by hand and golden values."""
import numpy as np
import pytest

from lamina.optimizers import Adamax

from .helpers import check_golden, one_step


def test_defaults_match_keras():
    opt = Adamax()
    assert (opt.beta_1, opt.beta_2, opt.epsilon, opt.name) == (0.9, 0.999, 1e-7, "adamax")


def test_first_step_by_hand(backend):
    # m = 0.1 g, u = |g|; w -= lr * m / ((1 - 0.9) (u + eps)) = lr * g / (|g| + eps)
    g = np.array([0.5, -2.0])
    expected = np.array([1.0, 1.0]) - 0.1 * g / (np.abs(g) + 1e-7)
    np.testing.assert_allclose(expected, [0.90000002, 1.1], rtol=1e-7)
    np.testing.assert_allclose(one_step(Adamax(0.1), [1.0, 1.0], g), expected, rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("hp", [{}, {"beta_1": 0.5, "beta_2": 0.8}])
def test_five_steps_match_keras_formula(backend, dtype, hp):
    check_golden(Adamax(0.1, **hp), "Adamax", dtype, **hp)
