"""A model's compile arguments as the ``compile_config`` of a ``.keras`` file, and back.

Written as Keras 3 writes it: the optimizer *instance* serialized (its learning rate and
hyperparameters, not the string the user passed), losses and metrics as names or
``{"module", "class_name", "config", "registered_name"}`` dicts. The model is not changed
while its config is read (Keras 3.15 drops the optimizer from it after an .h5 save).
"""
from __future__ import annotations

import warnings

from .object_registration import (UnknownObjectError, custom_object_scope,
                                  serialize_keras_object)

_KEYS = ("optimizer", "loss", "loss_weights", "metrics", "weighted_metrics", "run_eagerly",
         "steps_per_execution", "jit_compile")


def get_compile_config(model) -> dict | None:
    """``model``'s compile arguments in Keras 3's schema; None if it is not compiled."""
    if not getattr(model, "compiled", False):
        return None
    raw = dict(getattr(model, "_compile_config", None) or {})
    optimizer = getattr(model, "optimizer", None)
    jit_compile = getattr(model, "jit_compile", False)
    return {"optimizer": serialize_keras_object(optimizer if optimizer is not None
                                                else raw.get("optimizer")),
            "loss": serialize_keras_object(raw.get("loss")),
            "loss_weights": serialize_keras_object(raw.get("loss_weights")),
            "metrics": serialize_keras_object(raw.get("metrics")),
            "weighted_metrics": serialize_keras_object(raw.get("weighted_metrics")),
            "run_eagerly": bool(raw.get("run_eagerly", False)),
            "steps_per_execution": raw.get("steps_per_execution", 1),
            "jit_compile": jit_compile if isinstance(jit_compile, bool) else False}


def _objects(value, deserialize):
    """Names stay names (compile resolves them); config dicts become objects; dicts keyed
    by output name and lists are walked."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, dict):
        if "class_name" in value:
            return deserialize(value)
        return {key: _objects(item, deserialize) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_objects(item, deserialize) for item in value]
    return value


def compile_from_config(model, config: dict, custom_objects: dict | None = None) -> None:
    """Compile ``model`` as ``config`` says, then build its optimizer for the model's
    trainable weights so that saved optimizer state can be loaded into it."""
    from .. import losses, metrics, optimizers
    from ..trainers.trainer import Trainer
    if type(model).compile is not Trainer.compile:
        warnings.warn(f"{model.name}: the model's class overrides compile(), so its saved "
                      f"compile_config is not applied; call compile() on the loaded model",
                      stacklevel=3)
        return
    unknown = sorted(set(config) - set(_KEYS))
    if unknown:
        warnings.warn(f"{model.name}: ignoring unknown compile_config keys {unknown}",
                      stacklevel=3)
    try:
        with custom_object_scope(custom_objects or {}):
            optimizer = config.get("optimizer") or "rmsprop"
            if isinstance(optimizer, dict):
                optimizer = optimizers.deserialize(optimizer, custom_objects)
            arguments = {
                "optimizer": optimizer,
                "loss": _objects(config.get("loss"),
                                 lambda c: losses.deserialize(c, custom_objects)),
                "loss_weights": config.get("loss_weights"),
                "metrics": _objects(config.get("metrics"),
                                    lambda c: metrics.deserialize(c, custom_objects)),
                "weighted_metrics": _objects(config.get("weighted_metrics"),
                                             lambda c: metrics.deserialize(c, custom_objects)),
            }
    except UnknownObjectError as exc:
        raise UnknownObjectError(f"{exc}. (This is in the file's compile_config; pass "
                                 f"compile=False to load the model without it.)") from None
    for key in ("run_eagerly", "steps_per_execution", "jit_compile"):
        if config.get(key) is not None:
            arguments[key] = config[key]
    model.compile(**arguments)
    if model.built and model.optimizer is not None and not model.optimizer.built:
        model.optimizer.build(model.trainable_weights)
