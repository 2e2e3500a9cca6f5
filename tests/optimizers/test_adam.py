"""Adam, AMSGrad and AdamW: a first step by hand and 5-step golden values."""
import math

import numpy as np
import pytest

import lamina
from lamina import ops, optimizers
from lamina.optimizers import Adam, AdamW

from . import numpy_reference
from .helpers import check_golden, one_step


def test_defaults_match_keras():
    opt = Adam()
    assert (opt.beta_1, opt.beta_2, opt.epsilon, opt.amsgrad, opt.name) == \
        (0.9, 0.999, 1e-7, False, "adam")
    assert float(opt.learning_rate) == pytest.approx(0.001)
    # Keras 3.15's automatic names: snake_case of the class, then made unique.
    assert AdamW().weight_decay == 0.004 and AdamW().name == "adam_w_1"
    assert Adam().name == "adam_1" and Adam(name="mine").name == "mine"


def test_first_step_by_hand(backend):
    # t = 1: m = 0.1 g, v = 0.001 g^2, alpha = lr * sqrt(1 - 0.999) / (1 - 0.9)
    g = np.array([0.5, -1.0])
    m, v = 0.1 * g, 0.001 * g ** 2
    alpha = 0.1 * math.sqrt(0.001) / 0.1
    expected = np.array([1.0, -2.0]) - alpha * m / (np.sqrt(v) + 1e-7)
    np.testing.assert_allclose(expected, [0.90000063, -1.90000032], rtol=1e-7)
    np.testing.assert_allclose(one_step(Adam(0.1), [1.0, -2.0], g), expected, rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("hp", [{}, {"amsgrad": True}, {"beta_1": 0.5, "beta_2": 0.9,
                                                       "epsilon": 1e-3}])
def test_adam_five_steps_match_keras_formula(backend, dtype, hp):
    check_golden(Adam(0.1, **hp), "Adam", dtype, **hp)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_adamw_five_steps_match_keras_formula(backend, dtype):
    check_golden(AdamW(0.1, weight_decay=0.2), "AdamW", dtype)


def test_adamw_step_is_adam_step_on_decayed_weights():
    # Decoupled decay before the update: w <- w (1 - wd lr), then Adam's step.
    decayed = np.array([1.0, -2.0]) * (1 - 0.004 * 0.1)
    adam = one_step(Adam(0.1), decayed, [0.5, -1.0])
    np.testing.assert_allclose(one_step(AdamW(0.1), [1.0, -2.0], [0.5, -1.0]), adam,
                               rtol=1e-6)


def test_amsgrad_keeps_the_largest_velocity():
    opt = Adam(0.1, amsgrad=True)
    one_step(opt, [1.0], [2.0])                       # v = 0.001 * 4 = 0.004
    w = opt._trainable_variables[0]
    opt.apply_gradients([(ops.convert_to_tensor(np.array([0.0], "float32")), w)])
    # v decays to 0.999 * 0.004; v_hat keeps 0.004.
    np.testing.assert_allclose(opt._velocities[0].numpy(), [0.003996], rtol=1e-5)
    np.testing.assert_allclose(opt._velocity_hats[0].numpy(), [0.004], rtol=1e-6)


def test_errors():
    with pytest.raises(ValueError, match=r"AdamW: Argument `weight_decay` must be a float\. "
                                         r"Received: weight_decay=None"):
        AdamW(weight_decay=None)
    with pytest.raises(ValueError, match=r"Adam: argument 'beta_1' must be in \[0.0, 1.0\); "
                                         r"received 1.0"):
        Adam(beta_1=1.0)
    with pytest.raises(ValueError, match=r"Adam: argument 'epsilon' must be >= 0; "
                                         r"received -1"):
        Adam(epsilon=-1)


@pytest.mark.parametrize("name", ["Adam", "Nadam", "Adamax"])
def test_variables_of_two_dtypes_in_one_optimizer(name):
    # Per-step scalars are shared per dtype; each variable must still follow its own.
    w32 = lamina.Variable(np.array([1.0, -2.0], "float32"), dtype="float32")
    w64 = lamina.Variable(np.array([0.5, 3.0], "float64"), dtype="float64")
    opt = optimizers.get(name.lower())
    opt.learning_rate = 0.1
    for _ in range(4):
        opt.apply_gradients([(ops.multiply(w32, 2.0), w32), (ops.multiply(w64, 2.0), w64)])
    for w, start in ((w32, [1.0, -2.0]), (w64, [0.5, 3.0])):
        (want,) = numpy_reference.run(name, [start], lambda i, x: x * 2.0, 4, 0.1,
                                      w.dtype)
        np.testing.assert_allclose(w.numpy(), want, rtol=2e-6)
