"""A traced Lamina graph (``lamina.graph.ir.Graph``) as a TensorBoard GraphDef.

The walk is ``lamina.graph.to_dot``'s: graph inputs, the variables read, one node per op
application, the outputs, and one node per variable update. Names are what the Graphs tab
groups by (``/`` opens a box):

- inputs ``inputs/input_0``... (op ``Placeholder``);
- variables by their paths, ``dense/kernel``, ``adam/iteration``... (op ``VariableV2``);
- ops under the layer whose ``call`` traced them, ``sequential/dense/dense_bias_act``,
  others (loss, metrics, gradients, optimizer) at the top, ``softmax_crossentropy``, a
  ``_1``, ``_2``... suffix making repeated names unique;
- constants ``const_0``... (op ``Const``); outputs ``outputs/loss``... (op ``Identity``);
- variable updates ``dense/kernel/assign`` (op ``Assign``: the variable, the new value).

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


def to_graph_def(graph):
    """The GraphDef (tensorboardX's proto) of ``graph``."""
    _tensorboardx()                    # the extra's error when it is missing
    return _Converter().convert(graph)


class _Converter:
    def __init__(self):
        from tensorboardX.proto import (attr_value_pb2, graph_pb2, node_def_pb2,
                                        tensor_shape_pb2, versions_pb2)
        self.attr_pb2, self.graph_pb2, self.node_pb2 = attr_value_pb2, graph_pb2, node_def_pb2
        self.shape_pb2, self.versions_pb2 = tensor_shape_pb2, versions_pb2
        self.names = _Names()
        self.refs: dict[int, str] = {}        # id(tensor) -> "node" or "node:k"
        self.nodes: list = []
        self.constants = 0

    def convert(self, graph):
        for i, x in enumerate(graph.inputs):
            self.source(x, f"inputs/{x.name or f'input_{i}'}", "Placeholder")
        for i, (variable, placeholder) in enumerate(graph.variables):
            path = getattr(variable, "path", None) or placeholder.name or f"variable_{i}"
            self.source(placeholder, path, "VariableV2")
        for node in graph.nodes:
            base = f"{node.layer}/{node.op.name}" if node.layer else node.op.name
            name = self.names.unique(base)
            inputs = [self.ref(x) for x in node.inputs]
            for k, out in enumerate(node.outputs):
                self.refs[id(out)] = name if k == 0 else f"{name}:{k}"
            self.add(name, node.op.name, inputs, node.outputs, node.attrs)
        outputs = graph.outputs
        keys = list(outputs) if isinstance(outputs, dict) else None
        for i, output in enumerate(tree.flatten(outputs)):
            if isinstance(output, TensorBase):
                label = keys[i] if keys is not None and len(keys) == len(
                    tree.flatten(outputs)) else f"output_{i}"
                self.add(self.names.unique(f"outputs/{label}"), "Identity",
                         [self.ref(output)], [output], {})
        for variable, value in graph.updates:
            target = self.refs.get(id(_placeholder_of(graph, variable)))
            if target is None:                # written, never read
                target = self.names.unique(variable.path)
                self.add(target, "VariableV2", [], [variable], {})
            self.add(self.names.unique(f"{variable.path}/assign"), "Assign",
                     [target, self.ref(value)], [variable], {})
        return self.graph_pb2.GraphDef(node=self.nodes,
                                       versions=self.versions_pb2.VersionDef(producer=22))

    def source(self, tensor, base: str, op: str) -> None:
        name = self.names.unique(base)
        self.refs[id(tensor)] = name
        self.add(name, op, [], [tensor], {})

    def ref(self, value) -> str:
        found = self.refs.get(id(value))
        if found is not None:
            return found
        name = self.names.unique(f"const_{self.constants}")
        self.constants += 1
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


def _placeholder_of(graph, variable):
    for v, placeholder in graph.variables:
        if v is variable:
            return placeholder
    return None


def traced_train_graph(model):
    """The graph ``fit`` runs for ``model``'s train step, the most recently used trace;
    None while the step has run only eagerly (the first batch builds the optimizer's slots,
    ``run_eagerly=True``, a step that could not be traced)."""
    function = getattr(getattr(model, "train_function", None), "function", None)
    plans = getattr(function, "_plans", None)      # GraphFunction's traces, LRU order
    if getattr(model.train_function, "eager", False) or not plans:
        return None
    return next(reversed(plans.values())).graph
