"""``Model.compile_from_config``: compile a model as the ``compile_config`` of a file says
(``lamina/saving/compile_config.py`` writes it), then build its optimizer so that saved
optimizer state can be loaded into it. Names stay names (``compile`` resolves them);
config dicts become losses, metrics and optimizers through their families."""
from __future__ import annotations

import warnings

from .. import losses, metrics, optimizers
from ..registry import UnknownObjectError, custom_object_scope
from ..traceback_filter import user_stacklevel

_KEYS = ("optimizer", "loss", "loss_weights", "metrics", "weighted_metrics", "run_eagerly",
         "steps_per_execution", "jit_compile")


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
    unknown = sorted(set(config) - set(_KEYS))
    if unknown:
        warnings.warn(f"{model.name}: ignoring unknown compile_config keys {unknown}",
                      stacklevel=user_stacklevel())
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
