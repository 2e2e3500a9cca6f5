"""The size of each box: graphviz's table geometry (cell padding 10, spacing 2, cell border
1) around text measured with Helvetica's advance widths (SVG) or by the raster backend."""
from __future__ import annotations

from dataclasses import dataclass, field

PADDING = 10          # the label's cellpadding
SPACING = 2           # graphviz's default cellspacing: the black lines between cells
CELL_BORDER = 1
LINE_HEIGHT = 1.2     # of the font size

# Helvetica / Helvetica-Bold advance widths (per 1000 em) of printable ASCII, from the
# standard Adobe font metrics; characters elsewhere count 600.
_ASCII = "".join(chr(c) for c in range(32, 127))
_REGULAR = ("278 278 355 556 556 889 667 191 333 333 389 584 278 333 278 278 556 556 556 556 "
            "556 556 556 556 556 556 278 278 584 584 584 556 1015 667 667 722 722 667 611 778 "
            "722 278 500 667 556 833 722 778 667 778 722 667 611 722 667 944 667 667 611 278 "
            "278 278 469 556 333 556 556 500 556 556 278 556 556 222 222 500 222 833 556 556 "
            "556 556 333 500 278 556 500 722 500 500 500 334 260 334 584")
_BOLD = ("278 333 474 556 556 889 722 238 333 333 389 584 278 333 278 278 556 556 556 556 556 "
         "556 556 556 556 556 333 333 584 584 584 611 975 722 722 722 722 667 611 778 722 278 "
         "556 722 611 833 722 778 667 778 722 667 611 722 667 944 667 667 611 333 278 333 584 "
         "556 333 556 611 556 611 556 333 611 611 278 278 556 278 889 611 611 611 611 389 556 "
         "333 611 556 778 556 556 500 389 280 389 584")
WIDTHS = {False: dict(zip(_ASCII, map(int, _REGULAR.split()))),
          True: dict(zip(_ASCII, map(int, _BOLD.split())))}


def helvetica_width(text: str, size: float, bold: bool) -> float:
    table = WIDTHS[bool(bold)]
    return sum(table.get(ch, 600) for ch in text) * size / 1000.0


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


def measure_box(node, measure=helvetica_width) -> Box:
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
