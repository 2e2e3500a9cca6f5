"""Callbacks (Keras 3's ``keras.callbacks``), one per file.

``serialize``/``deserialize`` turn a built-in callback into Keras's
``{"module": "keras.callbacks", "class_name", "config", "registered_name"}`` and back (Keras
itself has no such functions for callbacks; they are here so every public class has a
config round trip). Functions held by LambdaCallback and LearningRateScheduler are saved by
their registered names.
"""
from __future__ import annotations

from typing import Any

from ..registry import register_family, serialize_keras_object
from ..registry.lookup import deserialize_from
from .backup_and_restore import BackupAndRestore
from .callback import Callback
from .callback_list import CallbackList
from .csv_logger import CSVLogger
from .early_stopping import EarlyStopping
from .history import History
from .lambda_callback import LambdaCallback
from .learning_rate_scheduler import LearningRateScheduler
from .model_checkpoint import ModelCheckpoint
from .progbar_logger import ProgbarLogger
from .reduce_lr_on_plateau import ReduceLROnPlateau
from .terminate_on_nan import TerminateOnNaN
from .swap_ema_weights import SwapEMAWeights
from .remote_monitor import RemoteMonitor
from .tensorboard import TensorBoard

ALL_OBJECTS: dict[str, type] = {cls.__name__: cls for cls in (
    BackupAndRestore, CSVLogger, EarlyStopping, History, LambdaCallback,
    LearningRateScheduler, ModelCheckpoint, ProgbarLogger, ReduceLROnPlateau, TerminateOnNaN,
    SwapEMAWeights, RemoteMonitor, TensorBoard)}


def serialize(callback: Callback) -> dict:
    """``{"module": "keras.callbacks", "class_name", "config", "registered_name"}``."""
    return serialize_keras_object(callback)


def deserialize(config, custom_objects: dict | None = None) -> Any:
    """A callback from its config dict (or the class a name stands for)."""
    return deserialize_from("callback", config, ALL_OBJECTS, custom_objects)


register_family("keras.callbacks", lambda: ALL_OBJECTS)

__all__ = ["Callback", "CallbackList", "History", "ProgbarLogger", "BackupAndRestore",
           "CSVLogger", "EarlyStopping", "LambdaCallback", "LearningRateScheduler",
           "ModelCheckpoint", "ReduceLROnPlateau", "TerminateOnNaN", "serialize",
           "deserialize", "ALL_OBJECTS", "SwapEMAWeights", "RemoteMonitor", "TensorBoard"]
