"""An SVG document of a :class:`Layout` (no dependency): units are points, as graphviz's.
Text is set in DejaVu Sans, the font the layout measured it with (font_metrics.py)."""
from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from .font_metrics import FONT_FAMILY, text_width
from .labels import visible


def _text(value) -> str:
    """XML character data of ``value``: escaped, and with no character XML forbids."""
    return escape(visible(value))


FONT = FONT_FAMILY
EDGE_WIDTH = 2.0


def _n(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def path_data(commands) -> str:
    parts = []
    for command in commands:
        parts.append(command[0] + " " + " ".join(f"{_n(x)},{_n(y)}" for x, y in command[1:]))
    return " ".join(parts)


def to_svg(layout, title: str = "G", dpi=72) -> str:
    """The SVG text; its size is scaled by ``dpi`` / 72 as graphviz's SVG is."""
    # the size in points as written in the viewBox, so width/height are its exact multiples
    w, h = round(layout.width, 2), round(layout.height, 2)
    scale = float(dpi) / 72.0
    out = ['<?xml version="1.0" encoding="UTF-8" standalone="no"?>',
           f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(w * scale)}pt" '
           f'height="{_n(h * scale)}pt" viewBox="0 0 {_n(w)} {_n(h)}">',
           f"<title>{_text(title)}</title>",
           f'<rect class="background" x="0" y="0" width="{_n(w)}" height="{_n(h)}" '
           'fill="white"/>']
    for x, y, cw, ch, name, _ in layout.clusters:
        out.append(f'<g class="cluster"><title>{_text(name)}</title>'
                   f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(cw)}" height="{_n(ch)}" '
                   'fill="none" stroke="black" stroke-dasharray="5,2"/>'
                   f'<text x="{_n(x + 8)}" y="{_n(y + 16)}" font-family="{FONT}" '
                   f'font-size="14">{_text(name)}</text></g>')
    for commands, arrow in layout.edges:
        points = " ".join(f"{_n(x)},{_n(y)}" for x, y in arrow)
        out.append(f'<g class="edge"><path d="{path_data(commands)}" fill="none" '
                   f'stroke="black" stroke-width="{_n(EDGE_WIDTH)}"/>'
                   f'<polygon points="{points}" fill="black" stroke="black"/></g>')
    for box in layout.boxes:
        left, top = box.x - box.width / 2, box.y - box.height / 2
        out.append(f'<g class="node" id={quoteattr("node" + visible(box.key))}>'
                   f'<rect x="{_n(left)}" y="{_n(top)}" width="{_n(box.width)}" '
                   f'height="{_n(box.height)}" fill="black"/>')
        for c in box.cells:
            cell = c.cell
            out.append(f'<rect x="{_n(left + c.x)}" y="{_n(top + c.y)}" width="{_n(c.width)}" '
                       f'height="{_n(c.height)}" fill="{cell.background}" stroke="black"/>')
            # Each run placed at its own x (DejaVu Sans's advance widths, the widths the
            # layout used): renderers differ on centring a line of mixed tspans.
            x = left + c.x + (c.width - sum(text_width(t, cell.size, b)
                                            for t, b in cell.runs)) / 2
            runs = []
            for text, bold in cell.runs:
                weight = ' font-weight="bold"' if bold else ""
                runs.append(f'<tspan x="{_n(x)}"{weight}>{_text(text)}</tspan>')
                x += text_width(text, cell.size, bold)
            baseline = top + c.y + c.height / 2 + cell.size * 0.35
            out.append(f'<text y="{_n(baseline)}" font-family="{FONT}" '
                       f'font-size="{cell.size}" fill="{cell.color}" '
                       f'xml:space="preserve">{"".join(runs)}</text>')
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"
