"""optimizers.get / serialize / deserialize: every Keras name, configs as Keras 3 and
Keras 2 wrote them, round trips (with a schedule inside), and the errors."""
import numpy as np
import pytest

import lamina
from lamina import optimizers
from lamina.optimizers import (SGD, Adadelta, Adafactor, Adagrad, Adam, Adamax, AdamW, Ftrl,
                               Lamb, Lion, MultiOptimizer, Muon, Nadam, OptimizerMap, RMSprop,
                               ScheduleFreeAdamW)
from lamina.optimizers.schedules import CosineDecay
from lamina.saving import UnknownObjectError, register_keras_serializable

KERAS_NAMES = {"sgd": SGD, "adam": Adam, "adamw": AdamW, "rmsprop": RMSprop,
               "adagrad": Adagrad, "adadelta": Adadelta, "adamax": Adamax, "nadam": Nadam,
               "lion": Lion, "adafactor": Adafactor, "ftrl": Ftrl, "lamb": Lamb, "muon": Muon,
               "schedulefreeadamw": ScheduleFreeAdamW}


@pytest.mark.parametrize("name", sorted(KERAS_NAMES))
def test_every_keras_string_gives_a_fresh_default_instance(name):
    cls = KERAS_NAMES[name]
    first, second = optimizers.get(name), optimizers.get(name)
    assert type(first) is cls and first is not second
    assert type(optimizers.get(cls.__name__)) is cls           # class names too
    assert type(optimizers.get(name.upper())) is cls           # Keras ignores case
    assert getattr(optimizers, cls.__name__) is cls


def test_get_passes_instances_and_none_through():
    opt = Adam()
    assert optimizers.get(opt) is opt and optimizers.get(None) is None


def test_serialize_writes_keras_3_format():
    config = optimizers.serialize(SGD(0.5, momentum=0.9, nesterov=True, clipnorm=1.0))
    assert config == {
        "module": "keras.optimizers", "class_name": "SGD", "registered_name": None,
        "config": {"name": "sgd", "learning_rate": 0.5, "weight_decay": None,
                   "clipnorm": 1.0, "global_clipnorm": None, "clipvalue": None,
                   "use_ema": False, "ema_momentum": 0.99, "ema_overwrite_frequency": None,
                   "loss_scale_factor": None, "gradient_accumulation_steps": None,
                   "momentum": 0.9, "nesterov": True}}


ROUND_TRIP = [SGD(0.1, momentum=0.5), Adam(0.01, beta_1=0.8, amsgrad=True, clipvalue=2.0),
              AdamW(0.002, weight_decay=0.1, global_clipnorm=3.0),
              RMSprop(0.01, rho=0.8, momentum=0.1, centered=True, use_ema=True,
                      ema_momentum=0.9, ema_overwrite_frequency=5),
              Adagrad(0.1, initial_accumulator_value=0.5, name="my_adagrad"),
              Adadelta(1.0, rho=0.9, loss_scale_factor=128.0),
              Adamax(0.003, beta_2=0.99, gradient_accumulation_steps=4),
              Nadam(0.002, epsilon=1e-5, weight_decay=0.01), Lion(3e-4, beta_2=0.95),
              Adafactor(0.01, beta_2_decay=-0.5, relative_step=False, clipnorm=1.0),
              Ftrl(0.1, l1_regularization_strength=0.01, beta=0.5, name="my_ftrl"),
              Lamb(0.01, beta_1=0.8, weight_decay=0.01),
              Muon(0.02, exclude_layers=["head"], rms_rate=None, nesterov=False),
              ScheduleFreeAdamW(0.01, warmup_steps=10, use_ema=True)]


@pytest.mark.parametrize("opt", ROUND_TRIP, ids=lambda o: type(o).__name__)
def test_config_round_trip(opt):
    rebuilt = optimizers.deserialize(optimizers.serialize(opt))
    assert type(rebuilt) is type(opt) and rebuilt.get_config() == opt.get_config()
    assert type(opt).from_config(opt.get_config()).get_config() == opt.get_config()


def test_schedule_inside_an_optimizer_round_trips():
    opt = Adam(CosineDecay(0.0, 100, warmup_target=0.01, warmup_steps=10))
    config = optimizers.serialize(opt)
    assert config["config"]["learning_rate"] == {
        "module": "keras.optimizers.schedules", "class_name": "CosineDecay",
        "registered_name": None,
        "config": {"initial_learning_rate": 0.0, "decay_steps": 100, "alpha": 0.0,
                   "name": "CosineDecay", "warmup_target": 0.01, "warmup_steps": 10}}
    rebuilt = optimizers.deserialize(config)
    assert isinstance(rebuilt._learning_rate, CosineDecay)
    assert rebuilt.get_config() == opt.get_config()
    assert float(rebuilt.learning_rate) == 0.0          # warmup starts at 0 at iteration 0


def test_reads_a_keras_3_file_config():
    keras3 = {"module": "keras.optimizers", "class_name": "Adam", "registered_name": None,
              "config": {"name": "adam", "learning_rate": 0.0010000000474974513,
                         "weight_decay": None, "clipnorm": None, "global_clipnorm": None,
                         "clipvalue": None, "use_ema": False, "ema_momentum": 0.99,
                         "ema_overwrite_frequency": None, "loss_scale_factor": None,
                         "gradient_accumulation_steps": None, "beta_1": 0.9,
                         "beta_2": 0.999, "epsilon": 1e-07, "amsgrad": False}}
    opt = optimizers.deserialize(keras3)
    assert isinstance(opt, Adam) and opt.get_config() == keras3["config"]


def test_reads_keras_2_configs():
    tf_keras = {"class_name": "Adam", "config": {
        "name": "Adam", "weight_decay": None, "clipnorm": None, "global_clipnorm": None,
        "clipvalue": None, "use_ema": False, "ema_momentum": 0.99,
        "ema_overwrite_frequency": None, "jit_compile": True, "is_legacy_optimizer": False,
        "learning_rate": 0.001, "beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-07,
        "amsgrad": False}}
    assert optimizers.deserialize(tf_keras).name == "Adam"
    legacy = {"class_name": "RMSprop", "config": {"lr": 0.002, "rho": 0.9, "decay": 0.0,
                                                  "epsilon": 1e-07}}
    with pytest.warns(UserWarning, match="'lr' is deprecated"):
        opt = optimizers.get(legacy)
    assert isinstance(opt, RMSprop)
    np.testing.assert_allclose(float(opt.learning_rate), 0.002, rtol=1e-6)


def test_users_registered_optimizer_round_trips():
    @register_keras_serializable(package="Tests")
    class HalfSGD(SGD):
        def update_step(self, gradient, variable, learning_rate):
            super().update_step(gradient * 0.5, variable, learning_rate)

    config = optimizers.serialize(HalfSGD(0.2))
    assert config["registered_name"] == "Tests>HalfSGD"
    rebuilt = optimizers.deserialize(config)
    assert type(rebuilt) is HalfSGD
    w = lamina.Variable(np.array([1.0], "float32"))
    rebuilt.apply_gradients([(lamina.ops.convert_to_tensor(np.array([1.0], "float32")), w)])
    np.testing.assert_allclose(w.numpy(), [0.9], rtol=1e-6)


def test_errors():
    with pytest.raises(UnknownObjectError, match=r"optimizers.get: unknown optimizer 'adamz' "
                                                 r"\(argument 'identifier'\); did you mean "
                                                 r"'adam', 'nadam' or 'adamw'\?"):
        optimizers.get("adamz")
    with pytest.raises(ValueError, match=r"could not interpret optimizer identifier 42"):
        optimizers.get(42)
    with pytest.raises(ValueError, match=r"could not interpret optimizer identifier"):
        optimizers.get(Adam)        # a class, not an instance (as in Keras)
    with pytest.raises(UnknownObjectError, match=r"unknown optimizer 'Fancy'"):
        optimizers.deserialize({"class_name": "Fancy", "config": {}})


def test_every_optimizer_is_covered_by_these_tests():
    # The wrappers need arguments: tests/optimizers/test_multi_optimizer.py and
    # test_loss_scale_optimizer.py cover them.
    classes = set(optimizers.ALL_OBJECTS.values()) - {MultiOptimizer, OptimizerMap,
                                                      optimizers.LossScaleOptimizer}
    assert {type(o) for o in ROUND_TRIP} == classes == set(KERAS_NAMES.values())
