"""LossScaleOptimizer: Keras 3's defaults, the exact scale schedule (a non-finite step is
skipped and halves the scale), its variables saved and restored, its config."""
from __future__ import annotations

import json

import numpy as np
import pytest

import lamina
from lamina import ops, optimizers
from lamina.optimizers import LossScaleOptimizer

# Keras 3.15.1 (JAX), LossScaleOptimizer(Adam(0.1), dynamic_growth_steps=2) on a variable
# ones(2), each step's gradient the row below times the current scale (stateless_apply):
# (variable, dynamic_scale, step_counter, iterations, Adam's first moment) after each step.
GRADIENTS = [[1.0, 1.0], [1.0, 1.0], [np.inf, 1.0], [2.0, 2.0], [1.0, -1.0], [np.nan, 0.0]]
KERAS_STEPS = [
    ([0.9000009894371033, 0.9000009894371033], 32768.0, 1, 1, [0.1, 0.1]),
    ([0.8000022172927856, 0.8000022172927856], 65536.0, 0, 2, [0.19, 0.19]),
    ([0.8000022172927856, 0.8000022172927856], 32768.0, 0, 2, [0.19, 0.19]),
    ([0.703223705291748, 0.703223705291748], 32768.0, 1, 3, [0.371, 0.371]),
    ([0.6078590750694275, 0.6518160700798035], 65536.0, 0, 4, [0.4339, 0.23389998]),
    ([0.6078590750694275, 0.6518160700798035], 32768.0, 0, 4, [0.4339, 0.23389998]),
]


def test_defaults_and_variables(backend):
    optimizer = LossScaleOptimizer(optimizers.SGD(0.1))
    assert (optimizer.initial_scale, optimizer.dynamic_growth_steps) == (2.0**15, 2000)
    assert optimizer.name == "loss_scale_optimizer"
    variable = lamina.Variable(np.ones(2, "float32"))
    optimizer.build([variable])
    own = [(v.path, v.dtype, float(v.numpy())) for v in optimizer.variables[:4]]
    assert own == [("loss_scale_optimizer/iteration", "int64", 0.0),
                   ("loss_scale_optimizer/learning_rate", "float32", 0.0),
                   ("loss_scale_optimizer/step_counter", "int32", 0.0),
                   ("loss_scale_optimizer/dynamic_scale", "float32", 32768.0)]
    assert optimizer.variables[4:] == optimizer.inner_optimizer.variables
    assert optimizer.iterations is optimizer.inner_optimizer.iterations
    assert float(optimizer.learning_rate.numpy()) == pytest.approx(0.1)
    optimizer.learning_rate = 0.5
    assert float(optimizer.inner_optimizer.learning_rate.numpy()) == 0.5


def test_scale_schedule_matches_keras(backend):
    optimizer = LossScaleOptimizer(optimizers.Adam(0.1), dynamic_growth_steps=2)
    variable = lamina.Variable(np.ones(2, "float32"))
    optimizer.build([variable])
    momentum = optimizer.inner_optimizer.variables[2]
    for grad, (value, scale, counter, iterations, first) in zip(GRADIENTS, KERAS_STEPS):
        scaled = np.array(grad, "float32") * optimizer.dynamic_scale.numpy()
        optimizer.apply([ops.convert_to_tensor(scaled)], [variable])
        np.testing.assert_allclose(variable.numpy(), value, rtol=1e-6)
        assert float(optimizer.dynamic_scale.numpy()) == scale
        assert int(optimizer.step_counter.numpy()) == counter
        assert int(optimizer.iterations.numpy()) == iterations
        np.testing.assert_allclose(momentum.numpy(), first, rtol=1e-6)


def test_scale_loss_and_growth_at_the_default_steps(backend):
    optimizer = LossScaleOptimizer(optimizers.SGD(0.0), initial_scale=4.0,
                                   dynamic_growth_steps=3)
    loss = ops.convert_to_tensor(np.float32(1.5))
    assert float(optimizer.scale_loss(loss).numpy()) == 6.0       # before build: initial
    variable = lamina.Variable(np.zeros(1, "float32"))
    scales = []
    for _ in range(7):
        optimizer.apply([ops.ones((1,))], [variable])
        scales.append(float(optimizer.dynamic_scale.numpy()))
    assert scales == [4.0, 4.0, 8.0, 8.0, 8.0, 16.0, 16.0]
    assert float(optimizer.scale_loss(loss).numpy()) == 24.0


def test_config_round_trip_as_keras_writes():
    optimizer = LossScaleOptimizer(optimizers.SGD(0.1), initial_scale=256.0,
                                   dynamic_growth_steps=10)
    config = optimizers.serialize(optimizer)
    assert (config["module"], config["class_name"]) == ("keras.optimizers",
                                                        "LossScaleOptimizer")
    assert {k: v for k, v in config["config"].items() if k != "inner_optimizer"} == {
        "name": "loss_scale_optimizer", "initial_scale": 256.0, "dynamic_growth_steps": 10}
    restored = optimizers.deserialize(json.loads(json.dumps(config)))
    assert isinstance(restored, LossScaleOptimizer)
    assert isinstance(restored.inner_optimizer, optimizers.SGD)
    assert (restored.initial_scale, restored.dynamic_growth_steps) == (256.0, 10)


def test_argument_errors():
    sgd = optimizers.SGD()
    with pytest.raises(ValueError, match=r"LossScaleOptimizer: argument 'dynamic=False' is "
                       r"no longer supported; for a fixed scale, set `loss_scale_factor` on "
                       r"the `inner_optimizer`"):
        LossScaleOptimizer(sgd, dynamic=False)
    with pytest.raises(ValueError, match=r"LossScaleOptimizer: argument `clipnorm` is not "
                       r"supported; set `clipnorm` on the `inner_optimizer`"):
        LossScaleOptimizer(sgd, clipnorm=1.0)
    LossScaleOptimizer(sgd, clipnorm=None, use_ema=False)      # defaults from old configs
    # in the order given, as Keras lists them
    with pytest.raises(ValueError, match=r"LossScaleOptimizer: unsupported arguments: "
                       r"`foo`, `bar`$"):
        LossScaleOptimizer(sgd, foo=1, bar=2)
    with pytest.raises(TypeError, match=r"LossScaleOptimizer: argument 'inner_optimizer' "
                       r"must be an Optimizer; received 'sgd'"):
        LossScaleOptimizer("sgd")
    with pytest.raises(ValueError, match=r"LossScaleOptimizer: argument "
                       r"'dynamic_growth_steps' must be a positive int; received 0"):
        LossScaleOptimizer(sgd, dynamic_growth_steps=0)
    with pytest.raises(ValueError, match=r"LossScaleOptimizer.apply: when "
                       r"'trainable_variables' is not given the optimizer must already be "
                       r"built"):
        LossScaleOptimizer(optimizers.SGD()).apply([ops.ones((1,))])
    inner = optimizers.SGD(loss_scale_factor=8.0)
    LossScaleOptimizer(inner)
    assert inner.loss_scale_factor is None                    # never scaled twice


def test_scale_loss_of_a_python_number_after_four_skipped_steps():
    # Keras 3.15.1: initial_scale=400, four non-finite steps halve it to 25; scale_loss
    # takes plain numbers (scale_loss(1.0) == 25.0, scale_loss(3) == 75.0, float32).
    opt = LossScaleOptimizer(optimizers.SGD(0.5), initial_scale=400.0)
    assert float(opt.scale_loss(2)) == 800.0                  # before build: initial_scale
    variables = [lamina.Variable([1.0, 2.0, 3.0, 4.0])]
    opt.build(variables)
    with np.errstate(invalid="ignore"):
        for _ in range(4):
            opt.apply([ops.convert_to_tensor(np.full(4, np.inf, "float32"))], variables)
    assert float(opt.scale_loss(1.0)) == 25.0
    scaled = opt.scale_loss(3)
    assert float(scaled) == 75.0 and scaled.dtype == "float32"
    half = opt.scale_loss(ops.ones((), dtype="float16"))
    assert half.dtype == "float16" and float(half) == 25.0
    np.testing.assert_array_equal(variables[0].numpy(), [1.0, 2.0, 3.0, 4.0])
