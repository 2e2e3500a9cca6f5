"""keras.config's debugging caps (max epochs, max steps per epoch) take effect in fit,
evaluate and predict with Keras's warnings; the flash-attention and traceback-filtering
switches keep their flags and say once that they change nothing in Lamina."""
import numpy as np
import pytest

import lamina
from lamina import config


@pytest.fixture
def restore_config():
    yield
    config.set_max_epochs(None)
    config.set_max_steps_per_epoch(None)
    lamina.settings._flash_attention = None
    lamina.settings._traceback_filtering = True


def _model():
    model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(2)])
    model.compile("sgd", "mse")
    return model


def test_max_epochs_caps_fit(restore_config):
    config.set_max_epochs(2)
    assert config.max_epochs() == 2
    model = _model()
    with pytest.warns(UserWarning, match=r"Limiting epochs to 2"):
        history = model.fit(np.ones((8, 3)), np.ones((8, 2)), epochs=5, verbose=0)
    assert len(history.history["loss"]) == 2


def test_max_steps_per_epoch_caps_fit_evaluate_and_predict(restore_config):
    config.set_max_steps_per_epoch(2)
    model = _model()
    x, y = np.ones((40, 3)), np.ones((40, 2))
    with pytest.warns(UserWarning, match=r"Limiting steps_per_epoch to 2"):
        model.fit(x, y, batch_size=4, epochs=3, verbose=0)
    assert int(model.optimizer.iterations.numpy()) == 6          # 3 epochs x 2 steps
    with pytest.warns(UserWarning, match=r"Limiting steps_per_epoch to 2"):
        assert model.predict(x, batch_size=4, verbose=0).shape == (8, 2)
    with pytest.warns(UserWarning, match=r"Limiting steps_per_epoch to 2"):
        model.evaluate(x, y, batch_size=4, verbose=0)


def test_limits_are_checked(restore_config):
    with pytest.raises(ValueError, match=r"set_max_epochs: argument 'max_epochs' must be a "
                                         r"positive int or None; received 0"):
        config.set_max_epochs(0)


def test_flash_attention_and_traceback_switches(restore_config):
    assert config.is_traceback_filtering_enabled() is True
    config.disable_traceback_filtering()
    assert config.is_traceback_filtering_enabled() is False
    with pytest.warns(UserWarning, match=r"enable_flash_attention\(\) has no effect in "
                                         r"Lamina: Lamina has no flash-attention kernel"):
        config.enable_flash_attention()
    assert config.is_flash_attention_enabled() is True
    config.disable_flash_attention()
    assert config.is_flash_attention_enabled() is False


@pytest.mark.parametrize("value, expected", [("", 7.0), ("  ", 7.0), ("2.5", 2.5)])
def test_env_seconds_reads_a_bound_or_its_default(monkeypatch, value, expected):
    monkeypatch.setenv("LAMINA_TEST_WAIT", value)
    assert lamina.settings.env_seconds("LAMINA_TEST_WAIT", 7.0, "test") == expected


@pytest.mark.parametrize("value", ["soon", "0", "-1", "inf", "nan"])
def test_env_seconds_refuses_what_is_no_bound(monkeypatch, value):
    monkeypatch.setenv("LAMINA_TEST_WAIT", value)
    with pytest.raises(ValueError, match=rf"test: environment variable LAMINA_TEST_WAIT must be "
                                         rf"a positive number of seconds; received '{value}'"):
        lamina.settings.env_seconds("LAMINA_TEST_WAIT", 7.0, "test")
