"""Keras 2's functional-model configs in Keras 3's schema.

Keras 2 writes each call of a layer as ``[[layer, node, tensor, kwargs], ...]``: the
entries are the tensors of the call's first argument, the kwargs (the same on each entry)
hold the other arguments, with tensors written as ``[layer, node, tensor]`` lists. Keras 3
writes ``{"args": [...], "kwargs": {...}}`` with ``__keras_tensor__`` dicts. Two Keras 2
habits need more than a change of spelling:

- an RNN called as ``layer(x, initial_state=[h, c])`` is stored as called on ``[x, h, c]``;
  the states go back to the ``initial_state`` keyword;
- the calls of a nested model that has its own Input are numbered from 1 (its call 0
  links its Input to its outputs and is not part of the outer model); Keras 3 numbers
  them from 0.
"""
from __future__ import annotations

from .legacy_config import (MODEL_CLASSES, RNN_CLASSES, LegacyConfigError,
                            canonical_class_name, convert_layer)

_CONSTANT = "_CONSTANT_VALUE"


def convert_functional(config: dict) -> dict:
    """A functional model's config (its layers, their calls, its inputs and outputs)."""
    config = dict(config)
    entries = config.get("layers", [])
    keras2 = any(isinstance(node, list) for entry in entries
                 for node in entry.get("inbound_nodes") or [])
    offsets = {entry.get("name") or entry["config"].get("name") for entry in entries
               if keras2 and _has_own_input(entry)}
    layers = []
    for entry in entries:
        converted = convert_layer(entry)
        converted["name"] = entry.get("name") or (entry.get("config") or {}).get("name")
        converted["inbound_nodes"] = [_node(node, converted["class_name"], offsets)
                                      for node in entry.get("inbound_nodes", [])]
        layers.append(converted)
    config["layers"] = layers
    for key in ("input_layers", "output_layers"):
        if offsets and key in config:
            config[key] = _shift_refs(config[key], offsets)
    return config


def _has_own_input(entry: dict) -> bool:
    if canonical_class_name(entry.get("class_name", "")) not in MODEL_CLASSES:
        return False
    config = entry.get("config")
    layers = config if isinstance(config, list) else (config or {}).get("layers") or []
    if isinstance(config, dict) and "input_layers" in config:
        return True
    first = layers[0] if layers else {}
    return first.get("class_name") == "InputLayer" or \
        "batch_input_shape" in (first.get("config") or {})


def _shift_refs(value, offsets: set):
    if _is_ref(value):
        name, node, tensor = value
        return [name, node - 1 if name in offsets and node > 0 else node, tensor]
    if isinstance(value, dict):
        return {key: _shift_refs(item, offsets) for key, item in value.items()}
    if isinstance(value, list):
        return [_shift_refs(item, offsets) for item in value]
    return value


def _ref(name: str, node: int, tensor: int) -> dict:
    return {"class_name": "__keras_tensor__",
            "config": {"keras_history": [name, node, tensor]}}


def _is_ref(value) -> bool:
    return isinstance(value, (list, tuple)) and len(value) == 3 and \
        isinstance(value[0], str) and isinstance(value[1], int) and \
        isinstance(value[2], int) and not isinstance(value[1], bool)


def _refs_to_tensors(value):
    """Keras 2 writes tensors among call kwargs as ``[layer, node, tensor]`` lists."""
    if _is_ref(value):
        return _ref(*value)
    if isinstance(value, dict):
        return {key: _refs_to_tensors(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_refs_to_tensors(item) for item in value]
    return value


def _node(node, class_name: str, offsets: set) -> dict:
    """One call of a layer as Keras 3's ``{"args": [...], "kwargs": {...}}``."""
    if isinstance(node, dict):                       # already Keras 3's form
        return node
    if not isinstance(node, list) or not node:
        raise LegacyConfigError(f"a layer's inbound node must be a list of "
                                f"[layer, node, tensor, kwargs] entries; received {node!r}")
    if _is_ref(node[:3]) and (len(node) == 3 or isinstance(node[3], dict)) and \
            not isinstance(node[0], list):
        node = [node]                                # one call given without its list
    tensors, kwargs = [], {}
    for item in node:
        if not isinstance(item, list) or len(item) < 3:
            raise LegacyConfigError(f"a layer's inbound node entry must be [layer, node, "
                                    f"tensor(, kwargs)]; received {item!r}")
        if len(item) > 3 and isinstance(item[3], dict):
            kwargs = item[3]
        tensors.append(item[2] if item[0] == _CONSTANT else
                       _ref(*_shift_refs(list(item[:3]), offsets)))
    kwargs = _refs_to_tensors(_shift_refs(kwargs, offsets))
    if class_name in RNN_CLASSES and len(tensors) > 1 and "initial_state" not in kwargs:
        # Keras 2 passes `layer(x, initial_state=[h, c])` as the inputs [x, h, c].
        kwargs = {**kwargs, "initial_state": tensors[1:]}
        tensors = tensors[:1]
    return {"args": [tensors[0] if len(tensors) == 1 else tensors], "kwargs": kwargs}
