"""The model config side of :func:`lamina.saving.describe`: rows of layer names, classes,
recorded output shapes and parameter counts, read from the JSON alone (no class is looked
up, no layer created)."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass

@dataclass
class LayerRow:
    name: str
    class_name: str
    output_shape: str          # "?" where the file does not record it
    params: int | None         # None where the file holds no weights to count
    depth: int = 0             # 1 for the layers of a nested model, ...


def config_rows(config: dict, params, legacy: bool = False) -> list[LayerRow]:
    """One row per layer of a Sequential or functional model's config, a nested model's
    layers indented below it; ``[]`` for other models (subclassed ones list no layers).

    ``params(key)`` counts the weights of the layer at ``key``: its weights-file path
    (``layers/dense_1``, Keras 3's object graph) or, with ``legacy=True``, its name
    (``outer/inner`` inside a nested model), as legacy ``.h5`` files key weights.
    """
    return _rows(config, "", params, 0, legacy)


def _rows(entry: dict, prefix: str, params, depth: int, legacy: bool) -> list:
    config = entry.get("config") or {}
    layers = config.get("layers") if isinstance(config, dict) else None
    if not isinstance(layers, list):
        return []
    sequential = entry.get("class_name") == "Sequential"
    shapes = _recorded_shapes(layers, sequential)
    rows, used = [], {}
    for layer in layers:
        class_name = str(layer.get("class_name", "?"))
        name = str(layer.get("name") or (layer.get("config") or {}).get("name") or "?")
        if legacy:
            key = f"{prefix}/{name}" if prefix else name
        elif sequential and class_name == "InputLayer":
            key = None                      # a Sequential's weights leave its input out
        else:                               # snake_case class names, deduplicated in order
            key = f"{prefix}layers/{_unique(_snake(class_name), used)}"
        rows.append(LayerRow(name, class_name, shapes.get(name, "?"),
                             params(key) if key else 0, depth))
        if key and isinstance((layer.get("config") or {}).get("layers"), list):
            rows += _rows(layer, key if legacy else key + "/", params, depth + 1, legacy)
    return rows


def _recorded_shapes(layers: list, sequential: bool) -> dict:
    """``{layer name: output shape}`` for the shapes the config records: an InputLayer's
    batch shape, the tensors a functional model passes between layers, and a Sequential
    layer's ``build_config`` (the output shape of the layer before it)."""
    found: dict[str, dict] = {}
    names = [e.get("name") or (e.get("config") or {}).get("name") for e in layers]
    for i, entry in enumerate(layers):
        config = entry.get("config") or {}
        shape = config.get("batch_shape") or config.get("batch_input_shape")
        if shape is not None:
            found.setdefault(names[i], {})[0] = shape
        built = (entry.get("build_config") or {}).get("input_shape")
        if sequential and i > 0 and built is not None:
            found.setdefault(names[i - 1], {}).setdefault(0, built)
        for tensor in _keras_tensors(entry.get("inbound_nodes", [])):
            history = tensor.get("keras_history") or [None, 0, 0]
            if history[1] == 0 and "shape" in tensor:
                found.setdefault(history[0], {}).setdefault(history[2], tensor["shape"])
    return {name: " ".join(_shape_text(s) for _, s in sorted(by_index.items()))
            for name, by_index in found.items()}


def _keras_tensors(x) -> list:
    if isinstance(x, dict):
        if x.get("class_name") == "__keras_tensor__":
            return [x.get("config") or {}]
        return [t for v in x.values() for t in _keras_tensors(v)]
    if isinstance(x, list):
        return [t for v in x for t in _keras_tensors(v)]
    return []


def compile_details(compile_config) -> list[str]:
    """One line on how the model was compiled (Keras 3's compile_config or, from a legacy
    file, its training_config with the optimizer under 'optimizer')."""
    if not isinstance(compile_config, dict) or not compile_config:   # Keras writes {}
        return ["Not compiled"]
    optimizer = compile_config.get("optimizer")
    if isinstance(optimizer, dict):
        settings = optimizer.get("config") or {}
        optimizer = f"{optimizer.get('class_name')} (learning_rate " \
                    f"{json.dumps(settings.get('learning_rate'))})"
    return [f"Compiled: optimizer {optimizer}, loss "
            f"{json.dumps(compile_config.get('loss'))}, metrics "
            f"{json.dumps(compile_config.get('metrics'))}"]


def model_label(config: dict) -> str:
    """``"Sequential 'name'"``; a registered custom model by its ``"Pkg>Name"``."""
    inner = config.get("config") if isinstance(config.get("config"), dict) else {}
    name = config.get("registered_name") or config.get("class_name", "?")
    return f"{name} {inner.get('name', '?')!r}"


def _snake(name: str) -> str:
    """Keras's snake_case of a class name, as the weights file keys objects by it."""
    name = re.sub(r"\W+", "", name)
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


def _unique(key: str, used: dict) -> str:
    used[key] = used.get(key, -1) + 1
    return key if used[key] == 0 else f"{key}_{used[key]}"


def _shape_text(shape) -> str:
    if isinstance(shape, list) and shape and all(isinstance(s, list) for s in shape):
        return " ".join(_shape_text(s) for s in shape)
    return "(" + ", ".join("None" if d is None else str(d) for d in shape) + \
        ("," if len(shape) == 1 else "") + ")"
