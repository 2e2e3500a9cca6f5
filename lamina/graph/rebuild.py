"""A :class:`~lamina.graph.ir.Graph` rebuilt from an exported file's JSON and arrays
(``lamina/graph/export.py`` describes the layout): ops come from ``OP_REGISTRY`` by name,
loop bodies are rebuilt the same way, and every node's output specs are checked against
its op's ``output_spec``."""
from __future__ import annotations

from ..core.tensor import Tensor
from ..core.variable import Variable
from ..errors import describe_shape
from ..core.op import OP_REGISTRY
from ..ops.step_body import StepBody
from .errors import ExportError
from .export_codec import decode
from .ir import Graph
from ..core.symbolic import Node, SymbolicTensor


def rebuild_graph(name: str, nodes: list, signature: dict, variables: list,
                  constants: list, backend) -> Graph:
    shared = {f"constant:{i}": Tensor._wrap(backend.asarray(array), backend)
              for i, array in enumerate(constants)}
    values = dict(shared)
    inputs = []
    for i, spec in enumerate(signature["inputs"]):
        x = SymbolicTensor(spec["shape"], spec["dtype"], name=spec.get("name") or f"input_{i}")
        values[f"input:{i}"] = x
        inputs.append(x)
    bound = []
    for i, (array, path) in enumerate(variables):
        variable = Variable(array, dtype=str(array.dtype), trainable=False,
                            name=path.rsplit("/", 1)[-1], backend=backend)
        variable.path = path
        placeholder = SymbolicTensor(variable.shape, variable.dtype, name=path)
        values[f"variable:{i}"] = placeholder
        bound.append((variable, placeholder))
    _rebuild_nodes(nodes, values, shared)
    outputs = [_resolve(ref, values, "the outputs") for ref in signature["outputs"]]
    return Graph(inputs, outputs, bound, [], name=name)


# Ops renamed since files were first exported: the loop node was "scan" before
# ``lamina.ops.scan`` became Keras's function of that name.
_RENAMED = {"scan": "step_loop", "scan_grad": "step_loop_grad"}


def _rebuild_nodes(entries: list, values: dict, shared: dict) -> list:
    """Nodes from their JSON entries; ``values`` maps refs to tensors and is extended with
    each node's outputs. ``shared``: the file's constants, which loop bodies read too."""
    special = {"__step_body__": lambda content: _rebuild_body(content, shared)}
    nodes = []
    for k, entry in enumerate(entries):
        op = OP_REGISTRY.get(_RENAMED.get(entry["op"], entry["op"]))
        if op is None:
            raise ExportError(f"load_exported: node {k} uses op {entry['op']!r}, which is not "
                              f"in the op registry (a custom op? import the module that "
                              f"registers it before loading)")
        where = f"node {k} ({entry['op']})"
        node_inputs = [_resolve(ref, values, where) for ref in entry["inputs"]]
        attrs = decode(entry["attrs"], special)
        specs = op.output_spec(*node_inputs, **attrs)
        several = isinstance(specs, tuple) and not hasattr(specs, "dtype")
        node = Node(op, node_inputs, attrs, layer=entry.get("layer"), several=several)
        specs = specs if several else (specs,)
        recorded = [(tuple(shape), dtype) for shape, dtype in entry["outputs"]]
        if [(tuple(s.shape), s.dtype) for s in specs] != recorded:
            got = ", ".join(f"{describe_shape(s.shape)} {s.dtype}" for s in specs)
            raise ExportError(f"load_exported: {where} computes {got} here but the file "
                              f"records {recorded}: the op changed since the export")
        node.outputs = tuple(SymbolicTensor(s.shape, s.dtype, node=node, index=j)
                             for j, s in enumerate(specs))
        for j, out in enumerate(node.outputs):
            values[f"node:{k}:{j}"] = out
        nodes.append(node)
    return nodes


def _rebuild_body(content: dict, shared: dict):
    values = dict(shared)
    inputs = [SymbolicTensor(shape, dtype, name=f"step_input_{i}")
              for i, (shape, dtype) in enumerate(content["inputs"])]
    values.update((f"input:{i}", x) for i, x in enumerate(inputs))
    nodes = _rebuild_nodes(content["nodes"], values, shared)
    outputs = [_resolve(ref, values, "a step body's outputs") for ref in content["outputs"]]
    return StepBody(inputs, outputs, nodes, content["n_seq"], content["n_carry"])


def _resolve(ref, values: dict, where: str):
    if isinstance(ref, dict) and set(ref) == {"literal"}:
        return decode(ref["literal"])
    if not isinstance(ref, str) or ref not in values:
        raise ExportError(f"load_exported: {where} refers to {ref!r}, which no earlier "
                          f"node, input, variable or constant defines")
    return values[ref]
