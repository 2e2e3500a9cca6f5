"""A traced Lamina graph (``lamina.graph.ir.Graph``) as a TensorBoard GraphDef.

The walk is ``lamina.graph.to_dot``'s: graph inputs, the variables read, one node per op
application, the outputs, and one node per variable update. Names are what the Graphs tab
groups by (``/`` opens a box), so that, given the model, the top level shows one box per
layer of the model and ``loss``, ``metrics``, ``optimizer`` and ``inputs``, as TensorFlow's
graphs of a Keras model do:

- ``inputs/input_0``... (op ``Placeholder``): the step's flattened data;
- ``dense/...``: everything of layer ``dense`` (the model's own name dropped): its weights
  ``dense/kernel`` (op ``VariableV2``), their updates ``dense/kernel/assign`` (op
  ``Assign``: the variable, the new value), the ops its ``call`` traced
  (``dense/dense_bias_act``, a nested layer one box further down) and their gradients
  ``dense/gradients/matmul``. Gradients sit *inside* the layer's box rather than in one
  top-level ``gradients`` box (TensorFlow 1's choice): one ``gradients`` box would read
  every layer and feed every optimizer update, the tangle again, while a layer's box keeps
  the forward and backward ops that touch its weights together and only a few edges
  (activations in, the upstream gradient in and out, the weight gradients out) leave it;
- ``loss/...``: the loss, the seed and first steps of its gradient (``loss/gradients/``)
  and the loss tracker (``loss/total``, ``loss/count``, the logged ``loss/result``);
- ``metrics/<name>/...``: each metric's ops, variables and logged ``result``;
- ``optimizer/...``: the optimizer's shared ops and variables (``optimizer/iteration``)
  and, per weight, its slots and update arithmetic (``optimizer/dense/kernel/momentum``).

Ops traced in a layer's ``call`` (or its gradient: ``lamina/graph/autodiff.py`` records the
layer of each backward node) are placed by that record; the others by what they feed:
a layer's gradient (the loss), the data fed to a layer (inputs), a weight or optimizer
variable update (the optimizer; under one weight when they feed only that weight's), the
loss tracker (the loss), a metric's variables or result (that metric). Constants go where
their first reader is, ``_1``, ``_2``... suffixes make repeated names unique. Without the
model, layer paths are kept whole and variables named by their paths.

Each node carries ``_output_shapes`` (unknown sizes as -1, drawn on the edges), ``T``
(its dtype) and its op attributes as strings.
"""
from __future__ import annotations

import re

from .. import tree
from ..core.tensor import TensorBase
from .tensorboard_events import _tensorboardx

# TensorFlow's DataType numbers (types.proto).
_DTYPES = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6,
           "string": 7, "complex64": 8, "int64": 9, "bool": 10, "bfloat16": 14,
           "uint16": 17, "complex128": 18, "float16": 19, "uint32": 22, "uint64": 23}
_MAX_ATTR_CHARS = 80
_BAD = re.compile(r"[^A-Za-z0-9_./]")


def node_name(text: str) -> str:
    """``text`` as a legal NodeDef name (``[A-Za-z0-9.][A-Za-z0-9_./]*``)."""
    name = _BAD.sub("_", str(text)).strip("/") or "node"
    return name if re.match(r"[A-Za-z0-9.]", name) else "n" + name


class _Names:
    def __init__(self):
        self.used: set[str] = set()

    def unique(self, base: str) -> str:
        base = node_name(base)
        name, k = base, 0
        while name in self.used:
            k += 1
            name = f"{base}_{k}"
        self.used.add(name)
        return name


def to_graph_def(graph, model=None):
    """The GraphDef (tensorboardX's proto) of ``graph``, ``model``'s traced step when given
    (its layers, loss, metrics and optimizer name the top-level boxes)."""
    _tensorboardx()                    # the extra's error when it is missing
    return _Converter(_Placement(graph, model)).convert(graph)


class _Placement:
    """Where each variable and op of ``graph`` goes: ``var_name``, ``scope``."""

    def __init__(self, graph, model):
        self.model = getattr(model, "name", None)
        self.layers = {layer.name for layer in getattr(model, "layers", [])}
        self.owner = _owners(model)                  # id(variable) -> owner
        labels = self._labels(graph)
        self.names: dict[int, str] = {}
        for variable in [v for v, _ in graph.variables] + [v for v, _ in graph.updates]:
            self._name_variable(variable)
        for variable, value in graph.updates:         # slots under the weight they serve
            if self.owner.get(id(variable), ("",))[0] == "optimizer":
                served = _served(labels.get(id(getattr(value, "node", None)), ()), self)
                if served is not None:
                    slot = variable.path.rsplit("/", 1)[-1]
                    prefix = served.replace("/", "_") + "_"
                    slot = slot[len(prefix):] if slot.startswith(prefix) else slot
                    self.names[id(variable)] = f"optimizer/{served}/{slot}"
        self.scopes = {id(node): self._scope(node, labels.get(id(node), ()))
                       for node in graph.nodes}

    def var_name(self, variable, fallback: str) -> str:
        return self.names.get(id(variable)) or fallback

    def _name_variable(self, variable) -> None:
        path = getattr(variable, "path", None) or getattr(variable, "name", None)
        if path is None or id(variable) in self.names:
            return
        kind, owner = self.owner.get(id(variable), (None, None))
        if kind == "layer":
            path = path if path.startswith(owner + "/") else f"{owner}/{path}"
        elif kind == "optimizer":
            path = "optimizer/" + path.split("/", 1)[-1]
        elif kind == "loss":
            path = path if path.startswith("loss/") else f"loss/{path}"
        elif kind == "metric":
            path = f"metrics/{path}"
        self.names[id(variable)] = path

    def layer_scope(self, path: str) -> str:
        """A layer path without the model's own name (``sequential/dense`` -> ``dense``)."""
        head, _, rest = path.partition("/")
        if head == self.model and rest.split("/", 1)[0] in self.layers:
            return rest
        return path

    def _labels(self, graph) -> dict:
        """id(node) -> what the layerless node feeds (its own reads' owners, propagated up
        through layerless nodes): ("grad",), ("layer",), ("weight", id(var)),
        ("optimizer",), ("loss",), ("metric", name), ("other", name). Two weights at most
        are kept (one names a box, two mean "shared"): a deep model's gradient clipping
        would otherwise carry every weight up every node."""
        labels: dict[int, set] = {}

        def mark(value, label):
            node = getattr(value, "node", None)
            if node is None or node.layer is not None:
                return
            found = labels.setdefault(id(node), set())
            if label[0] == "weight" and label not in found and \
                    sum(1 for kind, *_ in found if kind == "weight") >= 2:
                return
            found.add(label)

        for variable, value in graph.updates:
            kind, owner = self.owner.get(id(variable), (None, None))
            label = {"layer": ("weight", id(variable)), "optimizer": ("optimizer",),
                     "loss": ("loss",)}.get(kind)
            if label is None:
                head = (getattr(variable, "path", None) or "variable").split("/", 1)[0]
                label = ("metric", head) if kind == "metric" else ("other", head)
            mark(value, label)
        outputs = graph.outputs
        if isinstance(outputs, dict):
            for key, value in outputs.items():
                for leaf in tree.flatten(value):
                    mark(leaf, ("loss",) if key == "loss" else ("metric", str(key)))
        else:
            for leaf in tree.flatten(outputs):
                mark(leaf, ("other", "outputs"))
        for node in reversed(graph.nodes):
            if node.layer is not None:
                label = ("grad",) if "gradients" in node.layer.split("/") else ("layer",)
                for x in node.inputs:
                    mark(x, label)
                continue
            for x in node.inputs:
                for label in labels.get(id(node), ()):
                    mark(x, label)
        return labels

    def _scope(self, node, labels) -> str:
        if node.layer is not None:
            return self.layer_scope(node.layer)
        kinds = {label[0] for label in labels}
        if "grad" in kinds:             # the loss's own gradient, or loss code it reads
            return "loss" if kinds - {"grad", "layer"} else "loss/gradients"
        if "layer" in kinds:
            return "inputs"             # data prepared outside the layers
        if kinds & {"weight", "optimizer"}:
            served = _served(labels, self)
            return "optimizer" if served is None else f"optimizer/{served}"
        if "loss" in kinds:
            return "loss"
        metrics = {label[1] for label in labels if label[0] == "metric"}
        if metrics:
            return f"metrics/{metrics.pop()}" if len(metrics) == 1 else "metrics"
        others = sorted(label[1] for label in labels if label[0] == "other")
        return others[0] if others else "outputs"


def _served(labels, placement):
    """The name of the one weight whose update ``labels`` say a node feeds, else None."""
    weights = {label[1] for label in labels if label[0] == "weight"}
    if len(weights) != 1:
        return None
    return placement.names.get(weights.pop())


def _owners(model) -> dict:
    """id(variable) -> ("layer", top-level layer name) / ("optimizer", None) /
    ("loss", None) (the loss tracker) / ("metric", None), for ``model``'s variables."""
    owners: dict[int, tuple] = {}
    if model is None:
        return owners
    for layer in getattr(model, "layers", []):
        for variable in getattr(layer, "variables", []):
            owners.setdefault(id(variable), ("layer", layer.name))
    optimizer = getattr(model, "optimizer", None)
    for variable in getattr(optimizer, "variables", None) or []:
        owners.setdefault(id(variable), ("optimizer", None))
    tracker = getattr(model, "_loss_tracker", None)
    for variable in getattr(tracker, "variables", None) or []:
        owners.setdefault(id(variable), ("loss", None))
    for metric in getattr(model, "metrics", None) or []:
        for variable in getattr(metric, "variables", None) or []:
            owners.setdefault(id(variable), ("metric", None))
    return owners


class _Converter:
    def __init__(self, placement):
        from tensorboardX.proto import (attr_value_pb2, graph_pb2, node_def_pb2,
                                        tensor_shape_pb2, versions_pb2)
        self.attr_pb2, self.graph_pb2, self.node_pb2 = attr_value_pb2, graph_pb2, node_def_pb2
        self.shape_pb2, self.versions_pb2 = tensor_shape_pb2, versions_pb2
        self.place = placement
        self.names = _Names()
        self.refs: dict[int, str] = {}        # id(tensor) -> "node" or "node:k"
        self.nodes: list = []

    def convert(self, graph):
        for i, x in enumerate(graph.inputs):
            self.source(x, f"inputs/{x.name or f'input_{i}'}", "Placeholder")
        for i, (variable, placeholder) in enumerate(graph.variables):
            fallback = getattr(variable, "path", None) or placeholder.name or f"variable_{i}"
            self.source(placeholder, self.place.var_name(variable, fallback), "VariableV2")
        for node in graph.nodes:
            scope = self.place.scopes[id(node)]
            name = self.names.unique(f"{scope}/{node.op.name}")
            inputs = [self.ref(x, scope) for x in node.inputs]
            for k, out in enumerate(node.outputs):
                self.refs[id(out)] = name if k == 0 else f"{name}:{k}"
            self.add(name, node.op.name, inputs, node.outputs, node.attrs)
        outputs = graph.outputs
        if isinstance(outputs, dict):        # the logs: one result per key
            labelled = [("loss/result" if key == "loss" else f"metrics/{key}/result", leaf)
                        for key, value in outputs.items() for leaf in tree.flatten(value)]
        else:
            labelled = [(f"outputs/output_{i}", leaf)
                        for i, leaf in enumerate(tree.flatten(outputs))]
        for label, output in labelled:
            if isinstance(output, TensorBase):
                self.add(self.names.unique(label), "Identity",
                         [self.ref(output, label.rsplit("/", 1)[0])], [output], {})
        placeholders = {id(v): placeholder for v, placeholder in graph.variables}
        for variable, value in graph.updates:
            target = self.refs.get(id(placeholders.get(id(variable))))
            if target is None:                # written, never read
                target = self.names.unique(self.place.var_name(variable, variable.path))
                self.add(target, "VariableV2", [], [variable], {})
            self.add(self.names.unique(f"{target}/assign"), "Assign",
                     [target, self.ref(value, target)], [variable], {})
        return self.graph_pb2.GraphDef(node=self.nodes,
                                       versions=self.versions_pb2.VersionDef(producer=22))

    def source(self, tensor, base: str, op: str) -> None:
        name = self.names.unique(base)
        self.refs[id(tensor)] = name
        self.add(name, op, [], [tensor], {})

    def ref(self, value, scope: str) -> str:
        """``value``'s node; a constant's is made in ``scope``, its first reader's."""
        found = self.refs.get(id(value))
        if found is not None:
            return found
        name = self.names.unique(f"{scope}/const")
        if isinstance(value, TensorBase):
            self.refs[id(value)] = name
            self.add(name, "Const", [], [value], {})
        else:
            self.add(name, "Const", [], [], {"value": value})
        return name

    def add(self, name: str, op: str, inputs: list, outputs, attrs: dict) -> None:
        attr = {}
        shapes = [self.shape(t.shape) for t in outputs if hasattr(t, "shape")]
        if shapes:
            attr["_output_shapes"] = self.attr_pb2.AttrValue(
                list=self.attr_pb2.AttrValue.ListValue(shape=shapes))
            dtype = _DTYPES.get(str(getattr(outputs[0], "dtype", "")))
            if dtype is not None:
                attr["T"] = self.attr_pb2.AttrValue(type=dtype)
        for key, value in attrs.items():
            text = repr(value)
            if len(text) > _MAX_ATTR_CHARS:
                text = text[:_MAX_ATTR_CHARS - 3] + "..."
            attr[node_name(key).replace(".", "_").replace("/", "_")] = \
                self.attr_pb2.AttrValue(s=text.encode("utf-8"))
        self.nodes.append(self.node_pb2.NodeDef(name=name, op=op, input=inputs, attr=attr))

    def shape(self, shape):
        dims = [self.shape_pb2.TensorShapeProto.Dim(size=-1 if d is None else int(d))
                for d in shape]
        return self.shape_pb2.TensorShapeProto(dim=dims)


def traced_train_graph(model):
    """The graph ``fit`` runs for ``model``'s train step, the most recently used trace;
    None while the step has run only eagerly (the first batch builds the optimizer's slots,
    ``run_eagerly=True``, a step that could not be traced)."""
    function = getattr(getattr(model, "train_function", None), "function", None)
    plans = getattr(function, "_plans", None)      # GraphFunction's traces, LRU order
    if getattr(model.train_function, "eager", False) or not plans:
        return None
    return next(reversed(plans.values())).graph
