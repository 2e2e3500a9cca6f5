"""The learning rate: a float32 Variable set in place, a schedule evaluated at
``iterations``, or a callable; and its errors."""
import warnings

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.optimizers import SGD, Adam
from lamina.optimizers.schedules import ExponentialDecay, PiecewiseConstantDecay


def _sgd_steps(opt, variable, gradients):
    for g in gradients:
        opt.apply_gradients([(ops.convert_to_tensor(np.array([g], "float32")), variable)])
    return float(variable.numpy()[0])


def test_learning_rate_is_a_float32_variable_in_the_variables():
    opt = Adam(0.01)
    lr = opt.learning_rate
    assert isinstance(lr, lamina.Variable) and lr.dtype == "float32" and not lr.trainable
    assert opt.variables[1] is lr and lr.path == "adam/learning_rate"
    it = opt.iterations
    assert it.dtype == "int64" and not it.trainable and int(it) == 0
    assert opt.variables[0] is it and it.path == "adam/iteration"


def test_setting_the_rate_mid_training_takes_effect_in_place(backend):
    opt = SGD(0.1)
    w = lamina.Variable(np.array([0.0], "float32"))
    variable_before = opt.learning_rate
    assert _sgd_steps(opt, w, [1.0, 1.0]) == pytest.approx(-0.2)
    opt.learning_rate = 0.01                    # what ReduceLROnPlateau does
    assert opt.learning_rate is variable_before
    assert float(opt.learning_rate) == pytest.approx(0.01)
    assert _sgd_steps(opt, w, [1.0]) == pytest.approx(-0.21)
    opt.lr = 0.5                                # Keras 2's name for the same property
    assert _sgd_steps(opt, w, [1.0]) == pytest.approx(-0.71)
    assert int(opt.iterations) == 4


def test_adam_reads_the_new_rate_too():
    opt = Adam(0.1)
    w = lamina.Variable(np.array([0.0], "float32"))
    _sgd_steps(opt, w, [1.0])
    opt.learning_rate = 0.0
    before = w.numpy().copy()
    _sgd_steps(opt, w, [1.0])
    np.testing.assert_array_equal(w.numpy(), before)


def test_schedule_is_evaluated_at_each_iteration(backend):
    # lr at iterations 0, 1, 2 = 0.1, 0.05, 0.025; gradient 1 each step.
    opt = SGD(ExponentialDecay(0.1, decay_steps=1, decay_rate=0.5))
    assert [v.name for v in opt.variables] == ["iteration"]     # no learning_rate variable
    w = lamina.Variable(np.array([0.0], "float32"))
    assert _sgd_steps(opt, w, [1.0, 1.0, 1.0]) == pytest.approx(-0.175)
    assert float(opt.learning_rate) == pytest.approx(0.0125)


def test_piecewise_schedule_in_adam():
    opt = Adam(PiecewiseConstantDecay([1], [0.1, 0.0]))
    w = lamina.Variable(np.array([1.0], "float32"))
    _sgd_steps(opt, w, [1.0, 1.0])            # steps 0 and 1 use 0.1
    moved = w.numpy().copy()
    _sgd_steps(opt, w, [1.0])                 # step 2 uses 0.0
    np.testing.assert_array_equal(w.numpy(), moved)
    assert moved[0] < 0.81


def test_callable_learning_rate():
    rate = {"value": 0.5}
    opt = SGD(lambda: rate["value"])
    w = lamina.Variable(np.array([0.0], "float32"))
    assert _sgd_steps(opt, w, [1.0]) == pytest.approx(-0.5)
    rate["value"] = 0.25
    assert _sgd_steps(opt, w, [1.0]) == pytest.approx(-0.75)


def test_setting_a_schedule_replaces_the_variable():
    opt = SGD(0.1)
    opt.learning_rate = ExponentialDecay(1.0, 10, 0.5)
    assert [v.name for v in opt.variables] == ["iteration"]
    assert float(opt.learning_rate) == pytest.approx(1.0)


def test_legacy_lr_argument_warns_and_is_used():
    with pytest.warns(UserWarning, match="SGD: argument 'lr' is deprecated"):
        opt = SGD(lr=0.3)
    assert float(opt.learning_rate) == pytest.approx(0.3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SGD(decay=0.0)                          # Keras 2 files store decay=0.0: no warning
    with pytest.warns(UserWarning, match="argument 'decay' is no longer supported"):
        SGD(decay=0.01)


def test_errors():
    with pytest.raises(ValueError, match=r"SGD: argument 'learning_rate' must be a finite "
                                         r"number >= 0; received -0.1"):
        SGD(learning_rate=-0.1)
    with pytest.raises(ValueError, match=r"Adam: argument 'learning_rate' must be a float, "
                                         r"a LearningRateSchedule or a callable"):
        Adam(learning_rate="fast")
    opt = SGD(0.1)
    with pytest.raises(ValueError, match=r"received -1.0"):
        opt.learning_rate = -1.0
    scheduled = SGD(ExponentialDecay(0.1, 10, 0.5))
    with pytest.raises(TypeError, match=r"SGD: the learning rate cannot be set to a number: "
                                        r"this optimizer's learning_rate is a ExponentialDecay"
                                        r".*This optimizer was created with a "
                                        r"`LearningRateSchedule`"):
        scheduled.learning_rate = 0.01
    with pytest.raises(ValueError, match=r"SGD: argument\(s\) not recognized: \['momentun'\]"):
        SGD(momentun=0.9)
