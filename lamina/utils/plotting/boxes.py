"""The size of each box: graphviz's table geometry (cell padding 10, spacing 2, cell border
1) around text measured with DejaVu Sans's advance widths (SVG) or by the raster backend."""
from __future__ import annotations

from dataclasses import dataclass, field

from .font_metrics import text_width

PADDING = 10          # the label's cellpadding
SPACING = 2           # graphviz's default cellspacing: the black lines between cells
CELL_BORDER = 1
LINE_HEIGHT = 1.2     # of the font size


@dataclass
class CellBox:
    x: float                      # top-left corner, relative to the box until placed
    y: float
    width: float
    height: float
    cell: object                  # labels.Cell: text runs, size and colours


@dataclass
class Box:
    key: str
    width: float
    height: float
    cells: list = field(default_factory=list)
    x: float = 0.0                # centre, once laid out
    y: float = 0.0


def measure_box(node, measure=text_width) -> Box:
    """The table of ``node``'s label: rows of cells, each row as wide as the widest."""
    rows = []
    for row in node.label.rows:
        widths = [sum(measure(t, c.size, b) for t, b in c.runs) + 2 * (PADDING + CELL_BORDER)
                  for c in row]
        height = max(c.size * LINE_HEIGHT for c in row) + 2 * (PADDING + CELL_BORDER)
        rows.append((row, widths, height))
    inner = max(sum(w) + SPACING * (len(w) - 1) for _, w, _ in rows)
    width = inner + 2 * SPACING
    box = Box(node.key, width, 0.0)
    y = SPACING
    for row, widths, height in rows:
        extra = (inner - sum(widths) - SPACING * (len(widths) - 1)) / len(widths)
        x = SPACING
        for cell, w in zip(row, widths):
            box.cells.append(CellBox(x, y, w + extra, height, cell))
            x += w + extra + SPACING
        y += height + SPACING
    box.height = y
    return box
