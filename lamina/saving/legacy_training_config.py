"""A legacy HDF5 file's ``training_config`` (Keras 2 or 3) as the ``compile_config`` that
``Model.compile_from_config`` applies.

Keras 2 differs from Keras 3 here in small ways: the optimizer is ``"Custom>Adam"`` with
``is_legacy_optimizer`` and ``jit_compile`` keys (``lr`` and ``decay`` in Keras <= 2.2 and
the legacy optimizers), losses have ``reduction: "auto"``, and metrics are stored as one
list per output of ``MeanMetricWrapper`` configs named ``"<output>_accuracy"``.
"""
from __future__ import annotations

import warnings

from .legacy_config import LegacyConfigError
from .. import metrics
from ..traceback_filter import user_stacklevel

# Keras 2 optimizer config keys that Keras 3's optimizers do not take.
_OPTIMIZER_DROPPED = ("is_legacy_optimizer", "jit_compile", "decay")
_METRIC_NAMES = {"acc": "accuracy", "accuracy": "accuracy", "ce": "crossentropy",
                 "crossentropy": "crossentropy"}


def convert_training_config(training: dict, output_names: list) -> dict:
    """A legacy file's ``training_config`` as a Keras 3 ``compile_config``."""
    if not isinstance(training, dict):
        raise LegacyConfigError(f"training_config must be a JSON object; received "
                                f"{str(training)[:80]!r}")
    compile_config = {"optimizer": _optimizer(training.get("optimizer_config")),
                      "loss": _losses(training.get("loss")),
                      "loss_weights": training.get("loss_weights"),
                      "metrics": _metrics(training.get("metrics"), output_names),
                      "weighted_metrics": _metrics(training.get("weighted_metrics"),
                                                   output_names)}
    for key in ("run_eagerly", "steps_per_execution"):
        if training.get(key) is not None:
            compile_config[key] = training[key]
    return compile_config


def _optimizer(config):
    if not isinstance(config, dict):
        return config
    class_name = str(config.get("class_name", "")).split(">")[-1]   # "Custom>Adam"
    inner = dict(config.get("config") or {})
    if "lr" in inner:                                 # Keras <= 2.2
        learning_rate = inner.pop("lr")
        inner.setdefault("learning_rate", learning_rate)
    if inner.get("decay"):
        warnings.warn(f"the file's {class_name} optimizer has decay={inner['decay']}, "
                      f"a Keras 2 argument Keras 3 dropped; it is ignored (use a "
                      f"learning-rate schedule instead)", stacklevel=user_stacklevel())
    for key in _OPTIMIZER_DROPPED:
        inner.pop(key, None)
    return {"class_name": class_name, "config": inner}


def _losses(loss):
    if isinstance(loss, list):
        return [_losses(item) for item in loss]
    if isinstance(loss, dict) and "class_name" not in loss:      # {output name: loss}
        return {key: _losses(item) for key, item in loss.items()}
    if isinstance(loss, dict) and loss["class_name"] == "function":
        return loss.get("config")        # a function, by its (registered) name
    if isinstance(loss, dict):
        config = dict(loss.get("config") or {})
        if config.get("reduction") == "auto":        # Keras 2's default
            config["reduction"] = "sum_over_batch_size"
        return {"class_name": loss["class_name"], "config": config}
    return loss


def _metric(metric, output: str | None):
    if not isinstance(metric, dict) or "class_name" not in metric:
        return metric
    config = metric.get("config") or {}
    name = str(config.get("name", ""))
    if output and name.startswith(f"{output}_"):      # Keras 2: "<output>_accuracy"
        name = name[len(output) + 1:]
    if metric["class_name"] == "MeanMetricWrapper":
        return _METRIC_NAMES.get(name) or (name if _is_metric_name(name) else None) or \
            config.get("fn") or name
    return {key: value for key, value in metric.items() if key != "module"}


def _is_metric_name(name: str) -> bool:
    """Whether ``compile(metrics=[name])`` knows ``name`` ("mae", "mse", "auc", ...)."""
    try:
        metrics.get(name)
    except (ValueError, TypeError):
        return False
    return True


def _metrics(metrics, output_names: list):
    """Keras 2 stores one list of metrics per output: ``[[m, ...], [m, ...]]``."""
    if metrics is None:
        return None
    if isinstance(metrics, dict) and "class_name" not in metrics:
        return {key: _metrics_list(value, key) for key, value in metrics.items()}
    if isinstance(metrics, list) and metrics and all(isinstance(m, list) for m in metrics):
        if len(metrics) == 1:
            only = output_names[0] if len(output_names) == 1 else None
            return _metrics_list(metrics[0], only) or None
        per_output = {}
        for name, items in zip(output_names, metrics):
            items = _metrics_list(items, name)
            if items:
                per_output[name] = items
        return per_output or None
    return _metrics_list(metrics, output_names[0] if len(output_names) == 1 else None)


def _metrics_list(items, output: str | None):
    if not isinstance(items, list):
        return _metric(items, output)
    return [_metric(item, output) for item in items if item is not None]
