"""RMSprop: Keras's documented example, a centered step by hand, golden values."""
import math

import numpy as np
import pytest

from lamina.optimizers import RMSprop

from .helpers import check_golden, one_step


def test_defaults_match_keras():
    opt = RMSprop()
    assert (opt.rho, opt.momentum, opt.epsilon, opt.centered, opt.name) == \
        (0.9, 0.0, 1e-7, False, "rm_sprop")


def test_keras_docstring_example(backend):
    # Keras: RMSprop(0.1) on loss = var^2 / 2 from var = 10 gives 9.683772.
    # v = 0.1 * 100 = 10; var -= 0.1 * 10 / sqrt(10 + 1e-7)
    assert 10 - 1 / math.sqrt(10 + 1e-7) == pytest.approx(9.683772, abs=1e-6)
    np.testing.assert_allclose(one_step(RMSprop(0.1), [10.0], [10.0]), [9.683772],
                               rtol=1e-7)


def test_centered_step_by_hand():
    # v = 0.1 g^2 = 0.4, a = 0.1 g = 0.2, denominator = 0.4 - 0.04 + 1e-7
    expected = 1.0 - 0.1 * 2.0 / math.sqrt(0.36 + 1e-7)
    np.testing.assert_allclose(one_step(RMSprop(0.1, centered=True), [1.0], [2.0]),
                               [expected], rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("hp", [{}, {"momentum": 0.5}, {"centered": True, "rho": 0.8},
                                {"momentum": 0.3, "centered": True}])
def test_five_steps_match_keras_formula(backend, dtype, hp):
    check_golden(RMSprop(0.01, **hp), "RMSprop", dtype, **hp)


def test_rho_must_be_in_unit_interval():
    with pytest.raises(ValueError, match=r"RMSprop: argument 'rho' must be in \[0.0, 1.0\]; "
                                         r"received -0.1"):
        RMSprop(rho=-0.1)
