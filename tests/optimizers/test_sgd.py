"""SGD: plain, momentum and Nesterov steps by hand, and 5-step golden values."""
import numpy as np
import pytest

from lamina import ops
from lamina.optimizers import SGD

from .helpers import check_golden, one_step


def test_defaults_match_keras():
    opt = SGD()
    assert (float(opt.learning_rate), opt.momentum, opt.nesterov, opt.name) == \
        (pytest.approx(0.01), 0.0, False, "sgd")


def test_plain_step_by_hand(backend):
    # w - lr * g = [1 - 0.1 * 0.5, 2 - 0.1 * -1]
    np.testing.assert_allclose(one_step(SGD(0.1), [1.0, 2.0], [0.5, -1.0]), [0.95, 2.1],
                               rtol=1e-6)


def test_momentum_two_steps_by_hand():
    opt = SGD(0.1, momentum=0.9)
    w = one_step(opt, [1.0, 2.0], [0.5, -1.0])
    np.testing.assert_allclose(w, [0.95, 2.1], rtol=1e-6)         # m = [-0.05, 0.1]
    variable = opt._trainable_variables[0]
    opt.apply_gradients([(ops.convert_to_tensor(np.array([0.5, -1.0], "float32")), variable)])
    # m = 0.9 * m - 0.1 * g = [-0.095, 0.19]; w += m
    np.testing.assert_allclose(variable.numpy(), [0.855, 2.29], rtol=1e-6)
    np.testing.assert_allclose(opt.momentums[0].numpy(), [-0.095, 0.19], rtol=1e-6)


def test_nesterov_step_by_hand():
    # m = [-0.05, 0.1]; w += 0.9 * m - 0.1 * g = [-0.095, 0.19]
    w = one_step(SGD(0.1, momentum=0.9, nesterov=True), [1.0, 2.0], [0.5, -1.0])
    np.testing.assert_allclose(w, [0.905, 2.19], rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("hp", [{}, {"momentum": 0.9}, {"momentum": 0.5, "nesterov": True}])
def test_five_steps_match_keras_formula(backend, dtype, hp):
    check_golden(SGD(0.05, **hp), "SGD", dtype, **hp)


def test_momentum_must_be_in_unit_interval():
    with pytest.raises(ValueError, match=r"SGD: argument `momentum` must be a float "
                                         r"between \[0, 1\]; received momentum=1\.5"):
        SGD(momentum=1.5)
