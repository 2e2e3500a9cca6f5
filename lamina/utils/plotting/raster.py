"""PNG, PDF (and the other formats matplotlib writes) of a :class:`Layout`, without
graphviz: the optional ``plots`` extra (matplotlib) draws the same boxes and edges."""
from __future__ import annotations

import io
import warnings

from ...errors import LaminaError

FONTS = ("Helvetica", "Arial", "Liberation Sans", "DejaVu Sans")
MAX_PIXELS = 30000        # per side; matplotlib's Agg canvas stops at 2**16


class MissingExtraError(LaminaError, ImportError):
    """An optional dependency that this feature needs is not installed."""


def _matplotlib(fmt: str):
    try:
        import matplotlib
    except ImportError:
        raise MissingExtraError(
            f"plot_model: writing a .{fmt} file needs graphviz's `dot` program or matplotlib; "
            "neither is installed. Install one (`pip install lamina[plots]` for matplotlib), "
            "or write .svg or .dot, which need neither") from None
    return matplotlib


def font_family() -> str:
    """The first of Helvetica's look-alikes that matplotlib has (it ships DejaVu Sans)."""
    from matplotlib import font_manager
    installed = {f.name for f in font_manager.fontManager.ttflist}
    return next((f for f in FONTS if f in installed), "DejaVu Sans")


def measurer():
    """``measure(text, size, bold)`` in points with the font matplotlib will draw."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath
    engine = TextToPath()
    family = font_family()
    cache = {}

    def measure(text: str, size: float, bold: bool) -> float:
        key = (text, size, bool(bold))
        if key not in cache:
            font = FontProperties(family=family, weight="bold" if bold else "normal", size=size)

            def width(s):
                return engine.get_text_width_height_descent(s, font, ismath=False)[0]
            # The ink extent leaves out spaces at the ends; count them as advances.
            core = text.strip(" ")
            space = width("x x") - width("xx")
            cache[key] = (width(core) if core else 0.0) + space * (len(text) - len(core))
        return cache[key]
    return measure


def render(layout, fmt: str, dpi) -> bytes:
    """The picture of ``layout`` as ``fmt`` bytes (png, pdf, ps, eps, jpg, ...)."""
    _matplotlib(fmt)
    from matplotlib.figure import Figure
    from matplotlib.patches import PathPatch, Polygon, Rectangle
    from matplotlib.path import Path
    from matplotlib.font_manager import FontProperties
    dpi = float(dpi)
    longest = max(layout.width, layout.height) / 72.0
    if longest * dpi > MAX_PIXELS:          # a very long model: keep within the canvas
        fitted = MAX_PIXELS / longest
        warnings.warn(f"plot_model: at dpi={dpi:g} the picture would be "
                      f"{longest * dpi:.0f} pixels long, past the {MAX_PIXELS} that "
                      f"matplotlib draws; writing it at dpi={fitted:.0f} (graphviz, or an "
                      ".svg file, has no such limit)", stacklevel=3)
        dpi = fitted
    figure = Figure(figsize=(layout.width / 72.0, layout.height / 72.0), dpi=dpi)
    axes = figure.add_axes((0, 0, 1, 1))
    axes.set_xlim(0, layout.width)
    axes.set_ylim(layout.height, 0)
    axes.axis("off")
    measure = measurer()
    fonts = {b: FontProperties(family=font_family(), weight="bold" if b else "normal")
             for b in (False, True)}
    for x, y, w, h, name, _ in layout.clusters:
        axes.add_patch(Rectangle((x, y), w, h, fill=False, edgecolor="black",
                                 linestyle=(0, (5, 2)), linewidth=1))
        axes.text(x + 8, y + 16, name, fontproperties=fonts[False], fontsize=14,
                  parse_math=False)
    codes = {"M": Path.MOVETO, "L": Path.LINETO, "C": Path.CURVE4}
    for commands, arrow in layout.edges:
        vertices, kinds = [], []
        for c in commands:
            for p in c[1:]:
                vertices.append(p)
                kinds.append(codes[c[0]])
        axes.add_patch(PathPatch(Path(vertices, kinds), fill=False, linewidth=2,
                                 edgecolor="black", capstyle="butt", joinstyle="miter"))
        axes.add_patch(Polygon(arrow, closed=True, facecolor="black", edgecolor="black",
                               linewidth=1))
    for box in layout.boxes:
        left, top = box.x - box.width / 2, box.y - box.height / 2
        axes.add_patch(Rectangle((left, top), box.width, box.height, facecolor="black",
                                 linewidth=0))
        for c in box.cells:
            cell = c.cell
            axes.add_patch(Rectangle((left + c.x, top + c.y), c.width, c.height,
                                     facecolor=cell.background, edgecolor="black",
                                     linewidth=1))
            total = sum(measure(t, cell.size, b) for t, b in cell.runs)
            x = left + c.x + (c.width - total) / 2
            y = top + c.y + c.height / 2
            for text, bold in cell.runs:
                axes.text(x, y, text, fontproperties=fonts[bold], fontsize=cell.size,
                          color=cell.color, va="center_baseline", ha="left",
                          parse_math=False)
                x += measure(text, cell.size, bold)
    buffer = io.BytesIO()
    figure.savefig(buffer, format=fmt, dpi=dpi, facecolor="white")
    return buffer.getvalue()
