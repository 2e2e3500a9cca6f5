"""Learning-rate schedules against Keras 3's formulas (written in numpy) at several steps,
their configs, and their argument errors."""
import math

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.optimizers import schedules
from lamina.optimizers.schedules import (CosineDecay, CosineDecayRestarts, ExponentialDecay,
                                         InverseTimeDecay, LearningRateSchedule,
                                         PiecewiseConstantDecay, PolynomialDecay)

STEPS = [0, 1, 3, 7, 10, 15, 26, 99]


def _values(schedule, steps=STEPS):
    return np.array([float(schedule(ops.convert_to_tensor(np.int64(s)))) for s in steps])


def _close(schedule, formula, steps=STEPS):
    want = np.array([formula(s) for s in steps], dtype="float64")
    np.testing.assert_allclose(_values(schedule, steps), want, rtol=2e-6, atol=1e-8)


def test_exponential_decay(backend):
    _close(ExponentialDecay(0.1, 10, 0.5), lambda s: 0.1 * 0.5 ** (s / 10))
    _close(ExponentialDecay(0.1, 10, 0.5, staircase=True),
           lambda s: 0.1 * 0.5 ** math.floor(s / 10))
    assert float(ExponentialDecay(1.0, 2, 0.5)(4)) == 0.25        # 0.5 ** 2, by hand


def test_inverse_time_decay(backend):
    _close(InverseTimeDecay(0.2, 5, 0.5), lambda s: 0.2 / (1 + 0.5 * s / 5))
    _close(InverseTimeDecay(0.2, 5, 0.5, staircase=True),
           lambda s: 0.2 / (1 + 0.5 * math.floor(s / 5)))
    assert float(InverseTimeDecay(1.0, 1, 1.0)(3)) == 0.25        # 1 / (1 + 3)


def test_polynomial_decay(backend):
    def poly(s, cycle=False, lr=0.1, end=0.01, steps=10, power=0.5):
        if cycle:
            steps = steps * (1.0 if s == 0 else math.ceil(s / steps))
        else:
            s = min(s, steps)
        return (lr - end) * (1 - s / steps) ** power + end

    _close(PolynomialDecay(0.1, 10, 0.01, power=0.5), poly)
    _close(PolynomialDecay(0.1, 10, 0.01, power=0.5, cycle=True),
           lambda s: poly(s, cycle=True))
    # Keras's defaults: end 1e-4, linear. Halfway: (0.1 - 1e-4) / 2 + 1e-4.
    assert float(PolynomialDecay(0.1, 10)(5)) == pytest.approx(0.05005, rel=1e-6)


def test_piecewise_constant_decay(backend):
    schedule = PiecewiseConstantDecay([3, 10], [1.0, 0.5, 0.1])
    np.testing.assert_allclose(_values(schedule, [0, 3, 4, 10, 11, 100]),
                               [1.0, 1.0, 0.5, 0.5, 0.1, 0.1], rtol=1e-7)
    assert schedule(0).dtype == "float32"
    ints = PiecewiseConstantDecay([2], [5, 1])
    assert ints(3).dtype == "int32" and int(ints(1)) == 5 and int(ints(3)) == 1


def test_cosine_decay(backend):
    def cosine(s, lr=0.1, steps=20, alpha=0.1):
        s = min(s, steps)
        return lr * ((1 - alpha) * 0.5 * (1 + math.cos(math.pi * s / steps)) + alpha)

    _close(CosineDecay(0.1, 20, alpha=0.1), cosine)
    assert float(CosineDecay(1.0, 10)(5)) == pytest.approx(0.5, rel=1e-6)   # cos(pi/2) = 0


def test_cosine_decay_with_warmup(backend):
    def warmup_cosine(s, lr=0.0, target=0.2, warmup=5, steps=20, alpha=0.0):
        s = min(s, steps + warmup)
        if s < warmup:
            return (target - lr) * s / warmup + lr
        return target * ((1 - alpha) * 0.5 * (1 + math.cos(math.pi * (s - warmup) / steps))
                         + alpha)

    _close(CosineDecay(0.0, 20, warmup_target=0.2, warmup_steps=5), warmup_cosine)
    # Halfway through the warmup from 0.1 to 0.3: 0.2; with no warmup steps: plain decay
    assert float(CosineDecay(0.1, 10, warmup_target=0.3, warmup_steps=4)(2)) == \
        pytest.approx(0.2)
    _close(CosineDecay(0.05, 20, warmup_target=0.2, warmup_steps=0),
           lambda s: warmup_cosine(s, lr=0.05, warmup=0))


def _sgdr(s, lr=0.1, first=10, t_mul=2.0, m_mul=0.5, alpha=0.05):
    fraction = s / first
    if t_mul == 1.0:
        restart = math.floor(fraction)
        fraction -= restart
    else:
        restart = math.floor(math.log(1 - fraction * (1 - t_mul)) / math.log(t_mul))
        elapsed = (1 - t_mul ** restart) / (1 - t_mul)
        fraction = (fraction - elapsed) / t_mul ** restart
    cosine = 0.5 * m_mul ** restart * (1 + math.cos(math.pi * fraction))
    return lr * ((1 - alpha) * cosine + alpha)


def test_cosine_decay_restarts(backend):
    steps = [0, 4, 9, 11, 25, 29, 31, 69, 71]      # away from the restart boundaries
    _close(CosineDecayRestarts(0.1, 10, alpha=0.05, m_mul=0.5), _sgdr, steps)
    _close(CosineDecayRestarts(0.1, 10, t_mul=1.0, m_mul=0.5, alpha=0.05),
           lambda s: _sgdr(s, t_mul=1.0), steps + [10, 20, 30])
    # Restarts at steps 10 (period 20) and 30 (period 40): back to the initial rate.
    restarts = CosineDecayRestarts(1.0, 10)
    np.testing.assert_allclose(_values(restarts, [0, 5, 10, 20, 30]),
                               [1.0, 0.5, 1.0, 0.5, 1.0], rtol=1e-6, atol=1e-7)


def test_schedules_accept_the_int64_iterations_variable():
    step = lamina.Variable(np.int64(7), dtype="int64", trainable=False)
    assert float(ExponentialDecay(1.0, 7, 0.5)(step)) == 0.5


SCHEDULES = [ExponentialDecay(0.1, 10, 0.9, staircase=True),
             InverseTimeDecay(0.1, 5, 0.5, name="inv"),
             PolynomialDecay(0.1, 100, 0.001, power=2.0, cycle=True),
             PiecewiseConstantDecay([10, 20], [0.1, 0.01, 0.001]),
             CosineDecay(0.0, 100, alpha=0.1, warmup_target=0.1, warmup_steps=10),
             CosineDecayRestarts(0.1, 50, t_mul=1.5, m_mul=0.8, alpha=0.01)]


@pytest.mark.parametrize("schedule", SCHEDULES, ids=lambda s: type(s).__name__)
def test_config_round_trip(schedule):
    config = schedules.serialize(schedule)
    assert config["module"] == "keras.optimizers.schedules"
    assert config["class_name"] == type(schedule).__name__
    rebuilt = schedules.deserialize(config)
    assert type(rebuilt) is type(schedule) and rebuilt.get_config() == schedule.get_config()
    np.testing.assert_allclose(_values(rebuilt), _values(schedule))


def test_keras_config_and_defaults():
    assert CosineDecayRestarts(0.1, 10).get_config() == {
        "initial_learning_rate": 0.1, "first_decay_steps": 10, "t_mul": 2.0, "m_mul": 1.0,
        "alpha": 0.0, "name": "SGDRDecay"}
    keras_file = {"class_name": "PolynomialDecay",
                  "config": {"cycle": False, "decay_steps": 10000, "end_learning_rate": 0.01,
                             "initial_learning_rate": 0.1, "name": None, "power": 0.5}}
    assert float(schedules.deserialize(keras_file)(10000)) == pytest.approx(0.01)
    assert PiecewiseConstantDecay([1], [1.0, 0.5]).name == "PiecewiseConstant"


def test_errors():
    with pytest.raises(ValueError, match=r"ExponentialDecay: argument 'decay_steps' must be "
                                         r"> 0; received 0"):
        ExponentialDecay(0.1, 0, 0.5)
    with pytest.raises(ValueError, match=r"CosineDecayRestarts: argument 'first_decay_steps' "
                                         r"must be > 0; received -5"):
        CosineDecayRestarts(0.1, -5)
    with pytest.raises(ValueError, match=r"PiecewiseConstantDecay: argument 'boundaries' must "
                                         r"have one element fewer than 'values'"):
        PiecewiseConstantDecay([1, 2], [0.1, 0.2])
    with pytest.raises(ValueError, match=r"'boundaries' must be strictly increasing; "
                                         r"received \[5, 2\]"):
        PiecewiseConstantDecay([5, 2], [0.1, 0.2, 0.3])
    with pytest.raises(TypeError, match=r"PolynomialDecay: argument 'power' must be a number; "
                                        r"received 'two'"):
        PolynomialDecay(0.1, 10, power="two")
    with pytest.raises(NotImplementedError, match="must override `__call__"):
        LearningRateSchedule()(0)
    with pytest.raises(ValueError, match=r"unknown learning rate schedule 'Nope'"):
        schedules.deserialize({"class_name": "Nope", "config": {}})


def test_every_schedule_is_covered_by_the_round_trip():
    assert {type(s) for s in SCHEDULES} == set(schedules.ALL_OBJECTS.values())


def test_a_schedule_built_on_the_optimizers_learning_rate_variable():
    # Keras 3.15.1: PolynomialDecay(adam.learning_rate, 4) takes the Variable's value, and
    # setting it as the rate untracks the learning_rate Variable (2 variables -> 1).
    adam = lamina.optimizers.Adam(learning_rate=0.001)
    assert len(adam.variables) == 2
    adam.learning_rate = PolynomialDecay(adam.learning_rate, 4)
    assert [v.name for v in adam.variables] == ["iteration"]
    assert adam._learning_rate.get_config()["initial_learning_rate"] == 0.001
    keras_rates = [0.0010000000474974513, 0.0007750000222586095, 0.0005499999970197678,
                   0.00032500000088475645, 9.999999747378752e-05, 9.999999747378752e-05]
    np.testing.assert_allclose([float(adam._learning_rate(i)) for i in range(6)],
                               keras_rates, rtol=1e-6)
    with pytest.raises(TypeError, match=r"PolynomialDecay: argument 'initial_learning_rate' "
                                        r"must be a number; received <Tensor"):
        PolynomialDecay(ops.ones((2,)), 4)
