"""``write_graph``: an optimized inference graph and its weights in one h5 file (what
``model.export(path)`` writes, atomically: ``lamina/models/graph_methods.py``).

The file holds data only (JSON text and arrays; nothing is pickled), so
``lamina.graph.load_exported(path)`` (``lamina/graph/exported.py``) runs it with the op
registry alone, in a process that never imports the model's code::

    /                 attrs: format, format_version, name, batch_size, graph_sha256
    /graph/nodes      one JSON string per node, in execution order:
                      {"op": registry name, "attrs": {...}, "inputs": [ref, ...],
                       "outputs": [[shape, dtype], ...], "layer": "model/dense"}
    /graph/signature  JSON: the inputs' specs and structure, the output refs and structure
    /variables/<i>    the weights the graph reads (attr "path"), values at export time
    /constants/<i>    the constant tensors captured while tracing

A ref names a value: "input:<i>", "variable:<i>", "constant:<i>", "node:<k>:<j>" (output
``j`` of node ``k``), or {"literal": value} for a Python value. Attributes are JSON with
tuples kept as {"__tuple__": [...]}, so a kernel receives exactly the traced attributes.

**Batch size.** The predict step is traced for one batch shape: the example ``x`` given to
``export`` (default: zeros of the model's input shapes with ``batch_size`` rows, 1 if not
given). The exported model runs any number of rows by cutting them into batches of that
size (padding the last one) -- rows are independent at inference -- so tracing at the
batch size you will mostly use avoids the padding.
"""
from __future__ import annotations

import json

from .. import tree
from ..h5_guard import create_checked
from ..ops.step_body import StepBody
from ..core.tensor import Tensor, TensorBase
from .errors import ExportError
from .export_codec import encode, encode_structure

FORMAT = "lamina.exported_graph"
FORMAT_VERSION = 2
# Version 2 adds the root attribute ``graph_sha256`` (:func:`graph_digest`): HDF5 checks no
# string data, so a damaged byte in a node's JSON would otherwise change the graph silently.


def graph_digest(nodes, signature: str) -> str:
    """SHA-256 of the graph's JSON text: every node, then the signature."""
    import hashlib
    digest = hashlib.sha256()
    for text in list(nodes) + [signature]:
        digest.update(text.encode("utf-8", "surrogatepass"))
        digest.update(b"\n")
    return digest.hexdigest()


def write_graph(graph, filepath, name: str = "graph", input_structure=None,
                input_names=None) -> None:
    """Write ``graph`` (an inference graph: no variable updates) to one h5 file (a path or
    a binary file object).
    ``input_structure``: the nesting of the inputs (its leaves, flattened, are
    ``graph.inputs``); default: a flat list, or the single input itself. ``input_names``:
    one per input, for error messages (default: the graph's)."""
    import h5py      # loaded on use: import lamina does not load it
    if input_structure is None:
        input_structure = graph.inputs[0] if len(graph.inputs) == 1 else list(graph.inputs)
    if len(tree.flatten(input_structure)) != len(graph.inputs):
        raise ExportError(f"export: the input structure has {len(tree.flatten(input_structure))}"
                          f" leaves but the graph has {len(graph.inputs)} inputs")
    if graph.updates:
        written = ", ".join(v.path for v, _ in graph.updates)
        raise ExportError(f"export: the inference graph of {name!r} writes variables "
                          f"({written}); only graphs without state updates can be exported")
    refs, constants = _Refs(graph.inputs, graph.variables), []
    nodes = [json.dumps(entry) for entry in _encode_nodes(graph.nodes, refs, constants)]
    signature = {
        "inputs": [{"shape": list(x.shape), "dtype": x.dtype, "name": label or x.name}
                   for x, label in zip(graph.inputs, input_names or [None] * len(graph.inputs))],
        "input_structure": encode_structure(input_structure),
        "outputs": [refs.of(o, constants, where="the outputs") for o in graph.flat_outputs],
        "output_structure": encode_structure(graph.outputs)}
    with h5py.File(filepath if hasattr(filepath, "write") else str(filepath), "w") as f:
        f.attrs["format"] = FORMAT
        f.attrs["format_version"] = FORMAT_VERSION
        f.attrs["name"] = name
        f.attrs["batch_size"] = graph.inputs[0].shape[0] if graph.inputs and \
            graph.inputs[0].shape else -1
        group = f.create_group("graph")
        group.create_dataset("nodes", data=nodes, dtype=h5py.string_dtype())
        signature_text = json.dumps(signature)
        f.attrs["graph_sha256"] = graph_digest(nodes, signature_text)
        group.create_dataset("signature", data=signature_text, dtype=h5py.string_dtype())
        variables = f.create_group("variables")
        for i, (variable, _) in enumerate(graph.variables):
            create_checked(variables, str(i), variable.numpy())
            variables[str(i)].attrs["path"] = variable.path or f"variable_{i}"
        consts = f.create_group("constants")
        for i, tensor in enumerate(constants):
            create_checked(consts, str(i), tensor.numpy())


def _encode_nodes(nodes, refs: "_Refs", constants: list) -> list[dict]:
    entries = []
    for k, node in enumerate(nodes):
        where = f"node {k} ({node.op.name})"
        inputs = [refs.of(x, constants, where) for x in node.inputs]
        attrs = encode(node.attrs, where, special=lambda v: _encode_body(v, constants))
        for j, out in enumerate(node.outputs):
            refs.names[id(out)] = f"node:{k}:{j}"
        entries.append({"op": node.op.name, "attrs": attrs, "inputs": inputs,
                        "outputs": [[list(o.shape), o.dtype] for o in node.outputs],
                        "layer": node.layer})
    return entries


def _encode_body(value, constants: list):
    """A loop's step sub-graph (``lamina/ops/step_body.py``) as nested nodes whose refs are
    local to the body (its inputs are the step's placeholders); None for other values."""
    if not isinstance(value, StepBody):
        return None
    refs = _Refs(value.inputs, [])
    nodes = _encode_nodes(value.nodes, refs, constants)
    return {"__step_body__": {
        "inputs": [[list(p.shape), p.dtype] for p in value.inputs], "nodes": nodes,
        "outputs": [refs.of(o, constants, "a step body's outputs") for o in value.outputs],
        "n_seq": value.n_seq, "n_carry": value.n_carry}}


class _Refs:
    def __init__(self, inputs, variables):
        self.names = {id(x): f"input:{i}" for i, x in enumerate(inputs)}
        self.names.update({id(p): f"variable:{i}" for i, (_, p) in enumerate(variables)})
    def of(self, value, constants: list, where: str):
        if id(value) in self.names:
            return self.names[id(value)]
        if isinstance(value, Tensor):
            self.names[id(value)] = f"constant:{len(constants)}"
            constants.append(value)
            return self.names[id(value)]
        if isinstance(value, TensorBase):
            raise ExportError(f"export: {where} reads a symbolic tensor that no node, input "
                              f"or variable of the graph produces: {value!r}")
        return {"literal": encode(value, where)}
