"""A model's compile arguments as the ``compile_config`` of a ``.keras`` file (reading them
back is the model's own ``compile_from_config``, ``lamina/trainers/compile_from_config.py``).

Written as Keras 3 writes it: the optimizer *instance* serialized (its learning rate and
hyperparameters, not the string the user passed), losses and metrics as names or
``{"module", "class_name", "config", "registered_name"}`` dicts. The model is not changed
while its config is read (Keras 3.15 drops the optimizer from it after an .h5 save).
"""
from __future__ import annotations

from ..registry import custom_object_scope, serialize_keras_object

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


def apply_compile_config(model, config: dict, custom_objects: dict | None = None) -> None:
    """``model.compile_from_config(config)`` (the trainer's, or a user's override) with
    ``custom_objects`` in scope for the names in it."""
    with custom_object_scope(custom_objects or {}):
        model.compile_from_config(config)
