"""An SVG document of a :class:`Layout` (no dependency): units are points, as graphviz's."""
from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

FONT = "Helvetica,Arial,sans-serif"
EDGE_WIDTH = 2.0


def _n(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def path_data(commands) -> str:
    parts = []
    for command in commands:
        parts.append(command[0] + " " + " ".join(f"{_n(x)},{_n(y)}" for x, y in command[1:]))
    return " ".join(parts)


def to_svg(layout, title: str = "G") -> str:
    w, h = layout.width, layout.height
    out = ['<?xml version="1.0" encoding="UTF-8" standalone="no"?>',
           f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(w)}pt" height="{_n(h)}pt" '
           f'viewBox="0 0 {_n(w)} {_n(h)}">',
           f"<title>{escape(title)}</title>",
           f'<rect class="background" x="0" y="0" width="{_n(w)}" height="{_n(h)}" '
           'fill="white"/>']
    for x, y, cw, ch, name, _ in layout.clusters:
        out.append(f'<g class="cluster"><title>{escape(name)}</title>'
                   f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(cw)}" height="{_n(ch)}" '
                   'fill="none" stroke="black" stroke-dasharray="5,2"/>'
                   f'<text x="{_n(x + 8)}" y="{_n(y + 16)}" font-family="{FONT}" '
                   f'font-size="14">{escape(name)}</text></g>')
    for commands, arrow in layout.edges:
        points = " ".join(f"{_n(x)},{_n(y)}" for x, y in arrow)
        out.append(f'<g class="edge"><path d="{path_data(commands)}" fill="none" '
                   f'stroke="black" stroke-width="{_n(EDGE_WIDTH)}"/>'
                   f'<polygon points="{points}" fill="black" stroke="black"/></g>')
    for box in layout.boxes:
        left, top = box.x - box.width / 2, box.y - box.height / 2
        out.append(f'<g class="node" id={quoteattr("node" + box.key)}>'
                   f'<rect x="{_n(left)}" y="{_n(top)}" width="{_n(box.width)}" '
                   f'height="{_n(box.height)}" fill="black"/>')
        for c in box.cells:
            cell = c.cell
            out.append(f'<rect x="{_n(left + c.x)}" y="{_n(top + c.y)}" width="{_n(c.width)}" '
                       f'height="{_n(c.height)}" fill="{cell.background}" stroke="black"/>')
            runs = "".join(f'<tspan font-weight="bold">{escape(t)}</tspan>' if bold
                           else f"<tspan>{escape(t)}</tspan>" for t, bold in cell.runs)
            baseline = top + c.y + c.height / 2 + cell.size * 0.35
            out.append(f'<text x="{_n(left + c.x + c.width / 2)}" y="{_n(baseline)}" '
                       f'text-anchor="middle" font-family="{FONT}" font-size="{cell.size}" '
                       f'fill="{cell.color}" xml:space="preserve">{runs}</text>')
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"
