"""A layer's box: Keras's HTML-like table label, and the same cells as data for drawing.

The label text is the one Keras 3 gives graphviz (``keras.utils.model_to_dot``): a black
header row with the layer's name and class, an optional activation row, then one cell per
shape / dtype / trainable flag that was asked for.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ... import tree

HEADER_SIZE = 16
CELL_SIZE = 14


@dataclass
class Cell:
    """One table cell: ``prefix`` in the regular face, ``value`` in bold, ``suffix``."""
    prefix: str
    value: str
    size: int = CELL_SIZE
    background: str = "white"
    color: str = "black"
    suffix: str = ""

    @property
    def runs(self) -> list:
        """(text, bold) pieces in reading order."""
        return [(t, b) for t, b in ((self.prefix, False), (self.value, True),
                                    (self.suffix, False)) if t]


@dataclass
class Label:
    """The rows of a box (each a list of cells) and graphviz's HTML text for them."""
    rows: list = field(default_factory=list)
    html: str = ""


def activation_name(layer) -> str:
    activation = layer.activation
    for attribute in ("name", "__name__"):
        if hasattr(activation, attribute):
            return getattr(activation, attribute)
    return str(activation)


def _first_call(layer, attribute: str):
    """Keras's ``layer.input`` / ``layer.output``: the tensors of the first call, one
    tensor unwrapped from its list; None when the layer was never called."""
    nodes = getattr(layer, "_inbound_nodes", None)
    if not nodes:
        return None
    tensors = list(getattr(nodes[0], attribute))
    return tensors[0] if len(tensors) == 1 else tensors


def _format_shape(shapes) -> str:
    if shapes is None:
        return "?"
    if isinstance(shapes, dict):
        text = ", ".join(f"{k}: {v}" for k, v in shapes.items())
    else:
        text = f"{shapes}"
    return visible(text.replace("{", "").replace("}", ""))


def visible(text) -> str:
    """``text`` with every character that XML cannot hold or that does not print (C0 and C1
    controls, DEL, surrogates, U+FFFE/U+FFFF) written as a ``\\xNN`` / ``\\uNNNN`` escape:
    graphviz's HTML labels, its SVG and Lamina's SVG are XML, and such a name would make
    them malformed."""
    return "".join(_visible_char(c) for c in str(text))


def _visible_char(c: str) -> str:
    code = ord(c)
    if code < 0x20 or 0x7F <= code <= 0x9F:
        return f"\\x{code:02x}"
    if 0xD800 <= code <= 0xDFFF or code in (0xFFFE, 0xFFFF):
        return f"\\u{code:04x}"
    return c


# graphviz parses a record node's label for fields ("|", "{}", "<port>") before it reads
# the HTML inside, so those characters are written as character references too
_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "{": "&#123;",
         "|": "&#124;", "}": "&#125;"}


def _escape(text: str) -> str:
    """``text`` (already ``visible``) as the text of graphviz's HTML label."""
    return "".join(_HTML.get(c, c) for c in text)


def _structure(value, attribute):
    if value is None:
        return None
    return tree.map_structure(lambda x: getattr(x, attribute), value)


def make_label(item, *, show_layer_names, show_layer_activations, show_dtype, show_shapes,
               show_trainable) -> Label:
    """The box of ``item``: a layer, a model drawn as one box, or an op step (an object
    with ``name``, ``class_name``, ``inputs`` and ``outputs``)."""
    class_name = getattr(item, "class_name", None) or type(item).__name__
    if hasattr(item, "class_name"):
        inputs, outputs = item.inputs, item.outputs
    else:
        inputs, outputs = _first_call(item, "input_tensors"), _first_call(item, "output_tensors")
    span = int(show_dtype) + int(show_trainable) + (2 if show_shapes else 0)
    span = max(1, span)
    name, class_name = visible(item.name), visible(class_name)
    # The header shows the name in bold and the class after it (or the class in bold).
    if show_layer_names:
        title = Cell("", name, HEADER_SIZE, "black", "white", f" ({class_name})")
        head = f"<b>{_escape(name)}</b> ({_escape(class_name)})"
    else:
        title = Cell("", class_name, HEADER_SIZE, "black", "white")
        head = f"<b>{_escape(class_name)}</b>"
    html = ('<<table border="0" cellborder="1" bgcolor="black" cellpadding="10">'
            f'<tr><td colspan="{span}" bgcolor="black"><font point-size="16" color="white">'
            f'{head}</font></td></tr>')
    rows = [[title]]
    if show_layer_activations and getattr(item, "activation", None) is not None:
        activation = visible(activation_name(item))
        html += (f'<tr><td bgcolor="white" colspan="{span}"><font point-size="14">'
                 f'Activation: <b>{_escape(activation)}</b></font></td></tr>')
        rows.append([Cell("Activation: ", activation)])
    cells = []
    if show_shapes:
        if class_name != "InputLayer":
            cells.append(Cell("Input shape: ", _format_shape(_structure(inputs, "shape"))))
        cells.append(Cell("Output shape: ", _format_shape(_structure(outputs, "shape"))))
    if show_dtype:
        dtype = _structure(outputs, "dtype")
        cells.append(Cell("Output dtype: ", f"{dtype or '?'}"))
    if show_trainable and hasattr(item, "trainable") and getattr(item, "weights", None):
        if item.trainable:
            cells.append(Cell("", "Trainable", CELL_SIZE, "forestgreen", "white"))
        else:
            cells.append(Cell("", "Non-trainable", CELL_SIZE, "firebrick", "white"))
    if cells:
        html += "<tr>" + "".join(_cell_html(c) for c in cells) + "</tr>"
        rows.append(cells)
    html += "</table>>"
    return Label(rows, html)


def _cell_html(cell: Cell) -> str:
    if cell.background == "white":
        return (f'<td bgcolor="white"><font point-size="14">{_escape(cell.prefix)}'
                f'<b>{_escape(cell.value)}</b></font></td>')
    return (f'<td bgcolor="{cell.background}"><font point-size="14" color="white">'
            f'<b>{_escape(cell.value)}</b></font></td>')
