"""Adagrad: a step by hand (the accumulator starts at 0.1) and golden values."""
import math

import numpy as np
import pytest

from lamina.optimizers import Adagrad

from .helpers import check_golden, one_step


def test_defaults_match_keras():
    opt = Adagrad()
    assert (opt.initial_accumulator_value, opt.epsilon, opt.name) == (0.1, 1e-7, "adagrad")
    assert float(opt.learning_rate) == pytest.approx(0.001)


def test_step_by_hand(backend):
    # acc = 0.1 + 0.25 = 0.35; w -= 0.1 * 0.5 / sqrt(0.35 + 1e-7)
    expected = 1.0 - 0.05 / math.sqrt(0.35 + 1e-7)
    assert expected == pytest.approx(0.915484, abs=1e-6)
    opt = Adagrad(0.1)
    np.testing.assert_allclose(one_step(opt, [1.0], [0.5]), [expected], rtol=1e-6)
    np.testing.assert_allclose(opt._accumulators[0].numpy(), [0.35], rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("hp", [{}, {"initial_accumulator_value": 1.0, "epsilon": 1e-3}])
def test_five_steps_match_keras_formula(backend, dtype, hp):
    check_golden(Adagrad(0.1, **hp), "Adagrad", dtype, **hp)


def test_accumulator_must_be_non_negative():
    with pytest.raises(ValueError, match=r"Adagrad: argument 'initial_accumulator_value' "
                                         r"must be >= 0; received -0.5"):
        Adagrad(initial_accumulator_value=-0.5)
