"""``model.summary()`` in Keras 3's layout, as plain text (no extra dependency)."""
from __future__ import annotations

from ..dtypes import itemsize
from ..core.symbolic import SymbolicTensor
from ..layers.core.input_layer import InputLayer

HEADERS = ("Layer (type)", "Output Shape", "Param #", "Connected to", "Trainable")
MIN_WIDTHS = (31, 24, 15, 24, 11)


def format_shape(shape) -> str:
    return "(" + ", ".join("None" if d is None else str(d) for d in shape) + \
        ("," if len(shape) == 1 else "") + ")"


def format_size(num_bytes: int) -> str:
    for unit, scale in (("GB", 1024 ** 3), ("MB", 1024 ** 2), ("KB", 1024)):
        if num_bytes >= scale:
            return f"{num_bytes / scale:.2f} {unit}"
    return f"{num_bytes:.2f} B"


def _count(variables) -> tuple[int, int]:
    count = size = 0
    for v in variables:
        n = 1
        for d in v.shape:
            n *= d
        count += n
        size += n * itemsize(v.dtype)
    return count, size


def _model_nodes(model, layer) -> list:
    if hasattr(model, "layer_nodes"):
        return model.layer_nodes(layer)
    return []


def _output_shape(model, layer) -> str:
    nodes = _model_nodes(model, layer) or layer._inbound_nodes
    if not nodes:
        return "?"
    shapes = []
    for node in nodes:
        outs = node.output_tensors
        text = format_shape(outs[0].shape) if len(outs) == 1 else \
            "[" + ", ".join(format_shape(t.shape) for t in outs) + "]"
        shapes.append(text)
    return shapes[0] if len(set(shapes)) == 1 else "multiple"


def _describe_input(model, tensor) -> str:
    if not isinstance(tensor, SymbolicTensor):
        return repr(tensor)
    if tensor.history is not None:
        layer, index, position = tensor.history
        nodes = _model_nodes(model, layer)
        node = layer._inbound_nodes[index]
        local = next((i for i, n in enumerate(nodes) if n is node), index)
        return f"{layer.name}[{local}][{position}]"
    if tensor.node is not None:
        inner = ", ".join(_describe_input(model, x) for x in tensor.node.inputs
                          if isinstance(x, SymbolicTensor))
        return f"{tensor.node.op.name}({inner})"
    return "?"


def _connected_to(model, layer) -> str:
    parts = []
    for node in _model_nodes(model, layer):
        parts.extend(_describe_input(model, t) for t in node.input_tensors)
    return ", ".join(parts) if parts else "-"


def _is_linear(model) -> bool:
    """A chain of single-input, single-call layers needs no "Connected to" column."""
    layers = [layer for layer in model.layers if not isinstance(layer, InputLayer)]
    if not hasattr(model, "layer_nodes") or type(model).__name__ == "Sequential":
        return True
    if len(getattr(model, "inputs", [])) > 1 or len(getattr(model, "outputs", [])) > 1:
        return False
    previous = model.inputs[0] if model.inputs else None
    for layer in layers:
        nodes = model.layer_nodes(layer)
        if len(nodes) != 1 or len(nodes[0].input_tensors) != 1:
            return False
        if nodes[0].input_tensors[0] is not previous:
            return False
        previous = nodes[0].output_tensors[0]
    return True


def print_summary(model, line_length=None, positions=None, print_fn=None,
                  expand_nested=False, show_trainable=False, layer_range=None) -> None:
    print_fn = print_fn or print
    graph = getattr(model, "_functional", None) or model
    layers = list(graph.layers) if hasattr(graph, "layers") else []
    if type(model).__name__ == "Sequential":
        layers = [layer for layer in layers if not isinstance(layer, InputLayer)]
    if layer_range is not None:
        names = [layer.name for layer in layers]
        start, stop = (names.index(n) for n in layer_range)
        layers = layers[start:stop + 1]
    connected = not _is_linear(graph)
    columns = [0, 1, 2] + ([3] if connected else []) + ([4] if show_trainable else [])
    rows = []
    for layer in layers:
        built = layer.built
        params = f"{_count(layer.weights)[0]:,}" if built else "0 (unbuilt)"
        cells = {0: f"{layer.name} ({type(layer).__name__})",
                 1: _output_shape(graph, layer) if built else "?", 2: params,
                 3: _connected_to(graph, layer) if connected else "",
                 4: ("Y" if layer.trainable else "N")}
        rows.append([cells[c] for c in columns])
    widths = [max(MIN_WIDTHS[c], 2 + max([len(HEADERS[c])] + [len(r[i]) for r in rows]))
              for i, c in enumerate(columns)]

    def line(cells, left, mid, right, aligns):
        parts = []
        for text, width, align in zip(cells, widths, aligns):
            body = text.rjust(width - 2) if align == ">" else text.ljust(width - 2)
            parts.append(f" {body} ")
        return left + mid.join(parts) + right

    def rule(left, fill, mid, right):
        return left + mid.join(fill * w for w in widths) + right

    aligns = [">" if c == 2 else "<" for c in columns]
    print_fn(f'Model: "{model.name}"')
    print_fn(rule("┏", "━", "┳", "┓"))
    print_fn(line([HEADERS[c] for c in columns], "┃", "┃", "┃", aligns))
    print_fn(rule("┡", "━", "╇", "┩"))
    for i, row in enumerate(rows):
        print_fn(line(row, "│", "│", "│", aligns))
        if i < len(rows) - 1:
            print_fn(rule("├", "─", "┼", "┤"))
    print_fn(rule("└", "─", "┴", "┘"))
    total, total_bytes = _count(model.weights)
    trainable, trainable_bytes = _count(model.trainable_weights)
    frozen, frozen_bytes = _count(model.non_trainable_weights)
    optimizer = getattr(model, "optimizer", None)
    optimizer_vars = list(getattr(optimizer, "variables", []) or []) if optimizer else []
    if optimizer_vars:
        opt_count, opt_bytes = _count(optimizer_vars)
        total, total_bytes = total + opt_count, total_bytes + opt_bytes
    print_fn(f" Total params: {total:,} ({format_size(total_bytes)})")
    print_fn(f" Trainable params: {trainable:,} ({format_size(trainable_bytes)})")
    print_fn(f" Non-trainable params: {frozen:,} ({format_size(frozen_bytes)})")
    if optimizer_vars:
        print_fn(f" Optimizer params: {opt_count:,} ({format_size(opt_bytes)})")
