"""Every built-in callback's config round-trips through serialize / deserialize."""
import pytest

import lamina
from lamina import callbacks
from lamina.saving import UnknownObjectError, register_keras_serializable


@register_keras_serializable(package="CallbackTests")
def step_schedule(epoch, lr):
    return 0.1 if epoch < 5 else 0.01


@register_keras_serializable(package="CallbackTests")
def log_epoch(epoch, logs):
    return None


INSTANCES = [
    callbacks.EarlyStopping(monitor="loss", min_delta=0.01, patience=3, verbose=1,
                            mode="min", baseline=0.5, restore_best_weights=True,
                            start_from_epoch=2),
    callbacks.ModelCheckpoint("ckpt/{epoch:02d}.weights.h5", monitor="val_acc", verbose=1,
                              save_best_only=True, save_weights_only=True, mode="max",
                              save_freq=10, initial_value_threshold=0.8),
    callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=2, verbose=1,
                                mode="min", min_delta=0.001, cooldown=1, min_lr=1e-5),
    callbacks.CSVLogger("log.csv", separator=";", append=True),
    callbacks.TerminateOnNaN(raise_error=True),
    callbacks.BackupAndRestore("backup", save_freq=5, double_checkpoint=True,
                               delete_checkpoint=False),
    callbacks.LearningRateScheduler(step_schedule, verbose=1),
    callbacks.LambdaCallback(on_epoch_end=log_epoch, on_test_end=log_epoch),
]


@pytest.mark.parametrize("callback", INSTANCES, ids=lambda c: type(c).__name__)
def test_round_trip(callback):
    config = callbacks.serialize(callback)
    assert config["module"] == "keras.callbacks"
    assert config["class_name"] == type(callback).__name__
    assert config["registered_name"] is None
    restored = callbacks.deserialize(config)
    assert type(restored) is type(callback)
    assert restored.get_config() == callback.get_config()


def test_configs_hold_the_constructor_arguments():
    assert callbacks.serialize(INSTANCES[0])["config"] == {
        "monitor": "loss", "min_delta": 0.01, "patience": 3, "verbose": 1, "mode": "min",
        "baseline": 0.5, "restore_best_weights": True, "start_from_epoch": 2}
    assert callbacks.serialize(INSTANCES[6])["config"]["schedule"]["config"] == \
        "CallbackTests>step_schedule"
    restored = callbacks.deserialize(callbacks.serialize(INSTANCES[7]))
    assert restored.on_epoch_end is log_epoch and restored.on_test_end is log_epoch


def test_defaults_are_keras_3s():
    assert callbacks.ReduceLROnPlateau().get_config() == {
        "monitor": "val_loss", "factor": 0.1, "patience": 10, "verbose": 0, "mode": "auto",
        "min_delta": 1e-4, "cooldown": 0, "min_lr": 0.0}
    assert callbacks.ModelCheckpoint("m.keras").get_config() == {
        "filepath": "m.keras", "monitor": "val_loss", "verbose": 0, "save_best_only": False,
        "save_weights_only": False, "mode": "auto", "save_freq": "epoch",
        "initial_value_threshold": None}


def test_unknown_class_name():
    with pytest.raises(UnknownObjectError, match="Lamina's built-in callbacks are "
                                                 "'BackupAndRestore', 'CSVLogger'"):
        callbacks.deserialize({"class_name": "NoSuchCallback", "config": {}})


def test_exported_as_keras_names():
    for name in ("EarlyStopping", "ModelCheckpoint", "ReduceLROnPlateau", "CSVLogger",
                 "TerminateOnNaN", "LambdaCallback", "LearningRateScheduler",
                 "BackupAndRestore"):
        assert getattr(lamina.callbacks, name).__name__ == name
