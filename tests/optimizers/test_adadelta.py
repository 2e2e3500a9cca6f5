"""Adadelta: a first step by hand and golden values."""
import math

import numpy as np
import pytest

from lamina.optimizers import Adadelta

from .helpers import check_golden, one_step


def test_defaults_match_keras():
    opt = Adadelta()
    assert (opt.rho, opt.epsilon, opt.name) == (0.95, 1e-7, "adadelta")


def test_first_step_by_hand(backend):
    # Eg = 0.05 * 0.25 = 0.0125; delta = -sqrt(0 + 1e-7) * 0.5 / sqrt(0.0125 + 1e-7)
    delta = -math.sqrt(1e-7) * 0.5 / math.sqrt(0.0125 + 1e-7)
    assert delta == pytest.approx(-0.00141421, rel=1e-5)
    opt = Adadelta(1.0)
    np.testing.assert_allclose(one_step(opt, [1.0], [0.5]), [1.0 + delta], rtol=1e-6)
    np.testing.assert_allclose(opt._accumulated_delta_vars[0].numpy(), [0.05 * delta ** 2],
                               rtol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("hp", [{}, {"rho": 0.5, "epsilon": 1e-4}])
def test_five_steps_match_keras_formula(backend, dtype, hp):
    check_golden(Adadelta(1.0, **hp), "Adadelta", dtype, **hp)
