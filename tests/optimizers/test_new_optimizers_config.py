"""The optimizers added in issue 11: default configs exactly as Keras 3.15.1 writes them,
and the errors their arguments raise."""
import pytest

import lamina
from lamina import optimizers
from lamina.optimizers import Adafactor, Ftrl, Lamb, Muon, ScheduleFreeAdamW

BASE = {"clipnorm": None, "global_clipnorm": None, "clipvalue": None, "use_ema": False,
        "ema_momentum": 0.99, "ema_overwrite_frequency": None, "loss_scale_factor": None,
        "gradient_accumulation_steps": None}
# keras.optimizers.<Name>().get_config() in a fresh Keras 3.15.1 session (jax).
KERAS_DEFAULTS = {
    "Adafactor": {"beta_2_decay": -0.8, "clip_threshold": 1.0, "epsilon_1": 1e-30,
                  "epsilon_2": 0.001, "learning_rate": 0.0010000000474974513,
                  "name": "adafactor", "relative_step": True, "weight_decay": None},
    "Ftrl": {"beta": 0.0, "initial_accumulator_value": 0.1, "l1_regularization_strength": 0.0,
             "l2_regularization_strength": 0.0, "l2_shrinkage_regularization_strength": 0.0,
             "learning_rate": 0.0010000000474974513, "learning_rate_power": -0.5,
             "name": "ftrl", "weight_decay": None},
    "Lamb": {"beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-07,
             "learning_rate": 0.0010000000474974513, "name": "lamb", "weight_decay": None},
    "Muon": {"adam_beta_1": 0.9, "adam_beta_2": 0.999, "adam_lr_ratio": 1,
             "adam_weight_decay": 0.004, "epsilon": 1e-07, "exclude_embeddings": True,
             "exclude_layers": [], "learning_rate": 0.0010000000474974513, "muon_a": 3.4445,
             "muon_b": -4.775, "muon_c": 2.0315, "name": "muon", "ns_steps": 5,
             "rms_rate": 0.2, "weight_decay": 0.004, "momentum": 0.95, "nesterov": True},
    "ScheduleFreeAdamW": {"beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-08,
                          "learning_rate": 0.0024999999441206455,
                          "name": "schedule_free_adam_w", "warmup_steps": 0,
                          "weight_decay": None},
}


@pytest.mark.parametrize("name", sorted(KERAS_DEFAULTS))
def test_default_config_is_keras(name):
    config = getattr(optimizers, name)().get_config()
    assert config == {**BASE, **KERAS_DEFAULTS[name]}
    assert getattr(optimizers, name)().name == KERAS_DEFAULTS[name]["name"] + "_1"


def test_reads_a_keras_file_config():
    config = {"module": "keras.optimizers", "class_name": "Muon", "registered_name": None,
              "config": {**BASE, **KERAS_DEFAULTS["Muon"], "exclude_layers": ["head"]}}
    opt = optimizers.deserialize(config)
    assert isinstance(opt, Muon) and opt.exclude_layers == ["head"] and opt.name == "muon"


def test_errors():
    # Keras 3.15.1's exact sentences (its ftrl_test anchors them with ^...$).
    with pytest.raises(ValueError, match=r"^`learning_rate_power` needs to be negative or "
                                         r"zero\. Received: learning_rate_power=0\.5\.$"):
        Ftrl(learning_rate_power=0.5)
    with pytest.raises(ValueError, match=r"^`l1_regularization_strength` needs to be positive "
                                         r"or zero\. Received: l1_regularization_strength=-1\.$"):
        Ftrl(l1_regularization_strength=-1)
    with pytest.raises(ValueError, match=r"^`initial_accumulator_value` needs to be positive "
                                         r"or zero\. Received: initial_accumulator_value=-0\.1\.$"):
        Ftrl(initial_accumulator_value=-0.1)
    with pytest.raises(ValueError, match=r"^`l2_shrinkage_regularization_strength` needs to be "
                                         r"positive or zero\. Received: "
                                         r"l2_shrinkage_regularization_strength=-0\.2\.$"):
        Ftrl(l2_shrinkage_regularization_strength=-0.2)
    with pytest.raises(ValueError, match=r"Adafactor: argument 'clip_threshold' must be > 0; "
                                         r"received 0"):
        Adafactor(clip_threshold=0)
    with pytest.raises(ValueError, match=r"Lamb: argument 'beta_1' must be in \[0.0, 1.0\); "
                                         r"received 1"):
        Lamb(beta_1=1)
    with pytest.raises(ValueError, match=r"ScheduleFreeAdamW: argument 'warmup_steps' must be "
                                         r"an integer >= 0; received -1"):
        ScheduleFreeAdamW(warmup_steps=-1)
    with pytest.raises(ValueError, match=r"ScheduleFreeAdamW: argument 'beta_1' must be in "
                                         r"\(0.0, 1.0\]; received 0"):
        ScheduleFreeAdamW(beta_1=0)
    with pytest.raises(ValueError, match=r"Muon: argument 'ns_steps' must be an integer >= 0; "
                                         r"received 2.5"):
        Muon(ns_steps=2.5)
    with pytest.raises(TypeError, match=r"Muon: argument 'exclude_layers' must be a list of "
                                        r"regular expressions or None; received 'dense'"):
        Muon(exclude_layers="dense")
    with pytest.raises(ValueError, match=r"Muon: argument 'momentum' must be in \[0.0, 1.0\]; "
                                         r"received 2"):
        Muon(momentum=2)
    with pytest.raises(ValueError, match=r"Lamb: argument\(s\) not recognized: \['beta_3'\]"):
        Lamb(beta_3=0.5)
    assert isinstance(lamina.optimizers.get("lamb"), Lamb)
