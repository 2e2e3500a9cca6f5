"""A functional model's config in Keras 3's schema, and the model rebuilt from it.

Each layer entry carries ``inbound_nodes``: one ``{"args": [...], "kwargs": {...}}`` per
call, with tensors written as ``{"class_name": "__keras_tensor__", "config": {"shape",
"dtype", "keras_history": [layer_name, node_index, tensor_index]}}``. Keras 2's form
(``[[["layer", node, tensor, {kwargs}], ...]]``) is read too.
"""
from __future__ import annotations

from .. import tree
from ..core.symbolic import SymbolicTensor
from ..layers.core.input_layer import InputLayer
from ..registry import serialize_keras_object
from ..layers import deserialize


def deserialize_layer(entry, custom_objects):
    return deserialize(entry, custom_objects)


class FunctionalConfigError(ValueError):
    """A functional config (or model) cannot be written or read as described."""


def _tensor_ref(model, tensor) -> list:
    if not isinstance(tensor, SymbolicTensor) or tensor.history is None:
        op = tensor.node.op.name if getattr(tensor, "node", None) is not None else "?"
        raise FunctionalConfigError(
            f"{model.name}.get_config: the op '{op}' is applied to symbolic tensors between "
            f"layers, which Lamina cannot serialize yet; use a layer instead (e.g. "
            f"lamina.layers.Add, Concatenate, Reshape, or a Lambda layer)")
    layer, index, position = tensor.history
    nodes = model.layer_nodes(layer)
    node = layer._inbound_nodes[index]
    local = next(i for i, n in enumerate(nodes) if n is node)
    return [layer.name, local, position]


def functional_config(model) -> dict:
    layers = []
    for layer in model.layers:
        entry = serialize_keras_object(layer)
        entry["name"] = layer.name
        nodes = []
        if not isinstance(layer, InputLayer):
            for node in model.layer_nodes(layer):
                def encode(x):
                    if isinstance(x, SymbolicTensor):
                        return {"class_name": "__keras_tensor__",
                                "config": {"shape": list(x.shape), "dtype": x.dtype,
                                           "keras_history": _tensor_ref(model, x)}}
                    return x
                nodes.append({"args": tree.map_structure(encode, list(node.args)),
                              "kwargs": tree.map_structure(encode, node.kwargs)})
        entry["inbound_nodes"] = nodes
        layers.append(entry)

    def refs(structure):
        if isinstance(structure, SymbolicTensor):      # one tensor: one triple (Keras 3)
            return _tensor_ref(model, structure)
        return tree.map_structure(lambda t: _tensor_ref(model, t), structure)
    return {"name": model.name, "trainable": model.trainable, "layers": layers,
            "input_layers": refs(model._input_structure),
            "output_layers": refs(model._output_structure)}


def _is_ref(x) -> bool:
    return isinstance(x, list) and len(x) == 3 and isinstance(x[0], str) and \
        isinstance(x[1], int) and isinstance(x[2], int)


def functional_from_config(cls, config: dict, custom_objects=None):
    """Create the layers, then replay their calls in dependency order."""
    created: dict[str, object] = {}
    outputs: dict[str, list] = {}            # layer name -> outputs of each replayed call
    pending = []
    for entry in config["layers"]:
        layer = deserialize_layer(entry, custom_objects)
        name = entry.get("name") or entry.get("config", {}).get("name")
        created[name] = layer
        if isinstance(layer, InputLayer):
            outputs[name] = [layer.output]
            continue
        outputs[name] = []
        for raw in entry.get("inbound_nodes", []):
            pending.append((name, _standardize_node(raw)))

    def ready(x) -> bool:
        if isinstance(x, dict) and x.get("class_name") == "__keras_tensor__":
            layer, node, _ = x["config"]["keras_history"]
            return len(outputs.get(layer, [])) > node
        return True

    def resolve(x):
        if isinstance(x, dict) and x.get("class_name") == "__keras_tensor__":
            layer, node, position = x["config"]["keras_history"]
            return tree.flatten(outputs[layer][node])[position]
        return x

    while pending:
        progress = False
        for item in list(pending):
            name, (args, kwargs) = item
            if not all(ready(x) for x in _tensor_dicts(args, kwargs)):
                continue
            call_args = _map_tensor_dicts(resolve, args)
            call_kwargs = _map_tensor_dicts(resolve, kwargs)
            outputs[name].append(created[name](*call_args, **call_kwargs))
            pending.remove(item)
            progress = True
        if not progress:
            names = sorted({name for name, _ in pending})
            raise FunctionalConfigError(f"functional config: the calls of layer(s) {names} "
                                        f"refer to tensors no layer produces")

    def lookup(ref):
        layer, node, position = ref
        if layer not in outputs or len(outputs[layer]) <= node:
            raise FunctionalConfigError(f"functional config: no tensor {ref}")
        return tree.flatten(outputs[layer][node])[position]

    def structure(refs):
        if _is_ref(refs):
            return lookup(refs)
        if isinstance(refs, dict):
            return {k: structure(v) for k, v in refs.items()}
        return [structure(r) for r in refs]

    def top_level(refs):
        """Keras writes one tensor as a bare triple, older files as ``[triple]``."""
        result = structure(refs)
        if isinstance(refs, list) and len(refs) == 1 and _is_ref(refs[0]):
            return result[0]
        return result
    inputs = top_level(config["input_layers"])
    outs = top_level(config["output_layers"])
    from .functional import Functional   # functional.py imports this module for its config
    target = cls if issubclass(cls, Functional) else Functional
    return target(inputs, outs, name=config.get("name"),
                  trainable=config.get("trainable", True))


def _standardize_node(raw):
    """Keras 3 ``{"args", "kwargs"}`` as is; Keras 2 ``[[name, node, tensor, kwargs], ...]``
    becomes args of tensor dicts (one tensor, or a list of them) and the shared kwargs."""
    if isinstance(raw, dict):
        return raw.get("args", []), raw.get("kwargs", {})
    tensors, kwargs = [], {}
    for item in raw:
        name, node, position = item[0], item[1], item[2]
        if len(item) > 3 and isinstance(item[3], dict):
            kwargs = item[3]
        tensors.append({"class_name": "__keras_tensor__",
                        "config": {"keras_history": [name, node, position]}})
    return ([tensors[0]] if len(tensors) == 1 else [tensors]), kwargs


def _tensor_dicts(*structures):
    found = []

    def walk(x):
        if isinstance(x, dict) and x.get("class_name") == "__keras_tensor__":
            found.append(x)
        elif isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, (list, tuple)):
            for v in x:
                walk(v)
    for s in structures:
        walk(s)
    return found


def _map_tensor_dicts(fn, x):
    if isinstance(x, dict) and x.get("class_name") == "__keras_tensor__":
        return fn(x)
    if isinstance(x, dict):
        return {k: _map_tensor_dicts(fn, v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(_map_tensor_dicts(fn, v) for v in x)
    return x
