"""``to_dot(graph)``: a Graphviz DOT picture of a graph (render it with ``dot -Tsvg``).

- one box per op node, labelled with the op's registry name, a summary of its attributes,
  its output shape(s) and dtype, and the layer whose ``call`` traced it;
- data flow as solid edges (labelled with the output index when a node has several);
- graph inputs as ``invhouse`` shapes, variables as cylinders, constants as notes,
  outputs as ``house`` shapes;
- each variable update as a dashed edge from the new value into the variable.

``model.graph(x, passes=[])`` and ``model.graph(x)`` give the graph before and after the
passes, so ``to_dot`` of each shows what the optimizer did.
"""
from __future__ import annotations

from ..core.tensor import Tensor, TensorBase
from ..errors import describe_shape

_MAX_ATTRS = 4          # attributes shown per node
_MAX_ATTR_CHARS = 28    # characters per attribute value
_MAX_SCALAR_SIZE = 1    # constants up to this size show their value

_STYLES = {
    "op": 'shape=box, style="rounded,filled", fillcolor="#ffffff"',
    "input": 'shape=invhouse, style=filled, fillcolor="#cfe2ff"',
    "variable": 'shape=cylinder, style=filled, fillcolor="#fff3bf"',
    "constant": 'shape=note, style=filled, fillcolor="#eeeeee"',
    "output": 'shape=house, style=filled, fillcolor="#d3f9d8"',
}


def to_dot(graph, title: str | None = None) -> str:
    """The DOT text of ``graph`` (a :class:`~lamina.graph.ir.Graph`)."""
    writer = _Writer()
    for i, x in enumerate(graph.inputs):
        writer.source(x, f"in{i}", "input", [x.name or f"input {i}", _spec(x)])
    for i, (variable, placeholder) in enumerate(graph.variables):
        writer.source(placeholder, f"var{i}", "variable",
                      [getattr(variable, "path", None) or placeholder.name or f"variable {i}",
                       _spec(placeholder)])
    for k, node in enumerate(graph.nodes):
        writer.op_node(node, f"op{k}")
    for i, output in enumerate(graph.flat_outputs):
        if isinstance(output, TensorBase):
            writer.statements.append(f'  out{i} [{_STYLES["output"]}, '
                                     f'label="{_label(["output " + str(i), _spec(output)])}"];')
            writer.edge(output, f"out{i}")
    for i, (variable, value) in enumerate(graph.updates):
        target = writer.ids.get(id(_placeholder_of(graph, variable)))
        if target is None:       # written but never read: draw the variable now
            target = f"written{i}"
            writer.statements.append(
                f'  {target} [{_STYLES["variable"]}, '
                f'label="{_label([variable.path, _spec(variable)])}"];')
        writer.edge(value, target, attrs='style=dashed, label="update", constraint=false')
    name = _escape(title if title is not None else getattr(graph, "name", "graph"))
    header = [f'digraph "{name}" {{', f'  label="{name}"; labelloc=t; rankdir=TB;',
              '  node [fontname="Helvetica", fontsize=10];',
              '  edge [fontname="Helvetica", fontsize=9];']
    return "\n".join(header + writer.statements + ["}"]) + "\n"


class _Writer:
    def __init__(self):
        self.ids: dict[int, str] = {}        # id(tensor) -> DOT node id
        self.ports: dict[int, int | None] = {}   # output index shown on edges
        self.statements: list[str] = []
        self.constants = 0

    def source(self, tensor, node_id: str, kind: str, lines: list) -> None:
        self.ids[id(tensor)] = node_id
        self.ports[id(tensor)] = None
        self.statements.append(f'  {node_id} [{_STYLES[kind]}, label="{_label(lines)}"];')

    def op_node(self, node, node_id: str) -> None:
        several = len(node.outputs) > 1
        for index, out in enumerate(node.outputs):
            self.ids[id(out)] = node_id
            self.ports[id(out)] = index if several else None
        lines = [node.op.name, *_attr_lines(node.attrs),
                 " | ".join(_spec(o) for o in node.outputs)]
        if node.layer:
            lines.append(f"[{node.layer}]")
        self.statements.append(f'  {node_id} [{_STYLES["op"]}, label="{_label(lines)}"];')
        for position, x in enumerate(node.inputs):
            self.edge(x, node_id, position=position, count=len(node.inputs))

    def edge(self, tensor, target: str, attrs: str = "", position: int = 0,
             count: int = 1) -> None:
        source = self.ids.get(id(tensor))
        if source is None:               # a constant (or a Python literal) input
            source = f"const{self.constants}"
            self.constants += 1
            self.statements.append(f'  {source} [{_STYLES["constant"]}, '
                                   f'label="{_label(_constant_lines(tensor))}"];')
            if isinstance(tensor, Tensor):
                self.ids[id(tensor)] = source
                self.ports[id(tensor)] = None
        port = self.ports.get(id(tensor))
        extra = [attrs] if attrs else []
        if port is not None:
            extra.append(f'taillabel="{port}"')
        suffix = f" [{', '.join(extra)}]" if extra else ""
        self.statements.append(f"  {source} -> {target}{suffix};")


def _placeholder_of(graph, variable):
    for v, placeholder in graph.variables:
        if v is variable:
            return placeholder
    return None


def _spec(tensor) -> str:
    return f"{describe_shape(tensor.shape)} {tensor.dtype}"


def _attr_lines(attrs: dict) -> list[str]:
    shown = []
    for key, value in list(attrs.items())[:_MAX_ATTRS]:
        text = repr(value)
        if len(text) > _MAX_ATTR_CHARS:
            text = text[:_MAX_ATTR_CHARS - 3] + "..."
        shown.append(f"{key}={text}")
    if len(attrs) > _MAX_ATTRS:
        shown.append(f"(+{len(attrs) - _MAX_ATTRS} more)")
    return shown


def _constant_lines(value) -> list[str]:
    if not isinstance(value, Tensor):
        return ["literal", repr(value)[:_MAX_ATTR_CHARS]]
    size = 1
    for d in value.shape:
        size *= d
    if size <= _MAX_SCALAR_SIZE:
        return ["constant", f"{value.numpy().reshape(()).item():.6g} {value.dtype}"]
    return ["constant", _spec(value)]


def _escape(text) -> str:
    return str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def _label(lines: list) -> str:
    return "\\n".join(_escape(line) for line in lines)
