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
from ..layers.layer import Layer
from .op_nodes import OpConfigError, OpReplay, is_op_entry, op_call_name, op_entry


def deserialize_layer(entry, custom_objects):
    return deserialize(entry, custom_objects)


class FunctionalConfigError(ValueError):
    """A functional config (or model) cannot be written or read as described."""


def _tensor_ref(model, tensor, op_names: dict) -> list:
    if isinstance(tensor, SymbolicTensor) and tensor.history is None and \
            getattr(tensor, "node", None) is not None and id(tensor.node) in op_names:
        return [op_names[id(tensor.node)], 0, tensor.node.outputs.index(tensor)]
    if not isinstance(tensor, SymbolicTensor) or tensor.history is None:
        raise FunctionalConfigError(f"{model.name}.get_config: {tensor!r} is not computed "
                                    f"by the model's layers or ops from its inputs")
    layer, index, position = tensor.history
    nodes = model.layer_nodes(layer)
    node = layer._inbound_nodes[index]
    local = next(i for i, n in enumerate(nodes) if n is node)
    return [layer.name, local, position]


def functional_config(model) -> dict:
    operations = model.operations
    used = {op.name for op in operations if isinstance(op, Layer)}
    op_names = {id(op): op_call_name(op, used) for op in operations
                if not isinstance(op, Layer)}

    def encode(x):
        if isinstance(x, SymbolicTensor):
            return {"class_name": "__keras_tensor__",
                    "config": {"shape": list(x.shape), "dtype": x.dtype,
                               "keras_history": _tensor_ref(model, x, op_names)}}
        return x

    layers = []
    for layer in operations:
        if not isinstance(layer, Layer):          # an op between layers (Keras 3 keeps it)
            try:
                layers.append(op_entry(layer, op_names[id(layer)], encode))
            except OpConfigError as error:
                raise FunctionalConfigError(f"{model.name}.get_config: {error}") from None
            continue
        entry = serialize_keras_object(layer)
        entry["name"] = layer.name
        nodes = []
        if not isinstance(layer, InputLayer):
            for node in model.layer_nodes(layer):
                nodes.append({"args": tree.map_structure(encode, list(node.args)),
                              "kwargs": tree.map_structure(encode, node.kwargs)})
        entry["inbound_nodes"] = nodes
        layers.append(entry)

    def refs(structure):
        if isinstance(structure, SymbolicTensor):      # one tensor: one triple (Keras 3)
            return _tensor_ref(model, structure, op_names)
        return tree.map_structure(lambda t: _tensor_ref(model, t, op_names), structure)
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
        try:
            layer = OpReplay(entry) if is_op_entry(entry) else \
                deserialize_layer(entry, custom_objects)
        except OpConfigError as error:
            raise FunctionalConfigError(f"functional config: {error}") from None
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
            unknown = sorted({x["config"]["keras_history"][0] for _, (args, kwargs) in pending
                              for x in _tensor_dicts(args, kwargs)
                              if x["config"]["keras_history"][0] not in created})
            if unknown:
                raise FunctionalConfigError(
                    f"functional config: Invalid Functional model configuration. Missing "
                    f"node: {', '.join(unknown)}: the calls of layer(s) {names} refer to "
                    f"layers the config does not list")
            raise FunctionalConfigError(
                f"functional config: Invalid Functional model configuration. The graph of "
                f"the Functional model either has loops or disconnected nodes: the calls of "
                f"layer(s) {names} wait on each other's outputs")

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
        if isinstance(refs, tuple):          # a config not (yet) through JSON keeps tuples
            return tuple(structure(r) for r in refs)
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
    target = Functional if cls in Functional.__bases__ else cls      # Model: a Functional
    # keys other than the graph's are a subclass's own constructor arguments (Keras 3)
    rest = {k: v for k, v in config.items() if k not in _GRAPH_KEYS}
    return target(inputs=inputs, outputs=outs, name=config.get("name"),
                  trainable=config.get("trainable", True), **rest)


_GRAPH_KEYS = ("name", "trainable", "layers", "input_layers", "output_layers")


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
