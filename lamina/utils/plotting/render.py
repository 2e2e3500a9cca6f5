"""Pictures of a :class:`PlotGraph`: graphviz's ``dot`` program when it is installed, else
Lamina's own layout written as SVG (no dependency) or through matplotlib (``plot`` extra)."""
from __future__ import annotations

import shutil
import subprocess

from ...errors import LaminaError
from ...settings import env_seconds
from . import raster
from .dot_text import graph_attributes, to_dot
from .place import layout
from .svg import to_svg
from .svg_size import SVG_FORMATS, resize

OWN_FORMATS = ("svg", "dot", "raw")
TIMEOUT_ENV = "LAMINA_GRAPHVIZ_TIMEOUT"
DEFAULT_TIMEOUT = 120.0


class GraphvizError(LaminaError, RuntimeError):
    """graphviz's ``dot`` program failed."""


def graphviz() -> str | None:
    """The path of graphviz's ``dot`` program, None when it is not installed."""
    return shutil.which("dot")


def graphviz_timeout() -> float:
    """Seconds graphviz may take for one picture: ``$LAMINA_GRAPHVIZ_TIMEOUT``, else 120."""
    return env_seconds(TIMEOUT_ENV, DEFAULT_TIMEOUT, "plot_model", GraphvizError)


def run_graphviz(program: str, text: str, fmt: str) -> bytes:
    """``program -T<fmt>`` on ``text``; killed (and a GraphvizError) past
    ``graphviz_timeout()`` seconds, so a huge or pathological graph cannot hang a script."""
    limit = graphviz_timeout()
    try:
        done = subprocess.run([program, f"-T{fmt}"], input=text.encode(), capture_output=True,
                              timeout=limit)
    except subprocess.TimeoutExpired:
        raise GraphvizError(f"plot_model: graphviz ({program} -T{fmt}) did not finish within "
                            f"{limit:g} s (${TIMEOUT_ENV}); it was stopped") from None
    if done.returncode != 0:
        raise GraphvizError(f"plot_model: graphviz ({program} -T{fmt}) failed with exit "
                            f"status {done.returncode}: "
                            f"{done.stderr.decode(errors='replace').strip()}")
    return done.stdout


def render_bytes(graph, fmt: str, rankdir: str = "TB", dpi=200, splines: str = "ortho",
                 use_graphviz: bool = True) -> bytes:
    """``graph`` drawn as ``fmt`` ("png", "svg", "pdf", "dot", ...)."""
    fmt = fmt.lower()
    text = to_dot(graph, graph_attributes(rankdir, dpi, splines))
    if fmt == "raw":
        return text.encode()
    program = graphviz() if use_graphviz else None
    if program is not None and fmt in SVG_FORMATS:
        # graphviz scales an SVG's drawing by dpi inside an unscaled viewBox (svg_size.py)
        plain = to_dot(graph, graph_attributes(rankdir, 72, splines))
        return resize(run_graphviz(program, plain, fmt), fmt, dpi)
    if program is not None:
        return run_graphviz(program, text, fmt)
    if fmt == "dot":
        return text.encode()
    if fmt == "svg":
        return to_svg(layout(graph, rankdir, splines), dpi=dpi).encode()
    raster._matplotlib(fmt)
    supported = _raster_formats()
    if fmt not in supported:
        raise ValueError(f"plot_model: cannot write a .{fmt} file without graphviz; Lamina's "
                         f"own drawing writes {', '.join(('dot', 'svg') + supported)}")
    return raster.render(layout(graph, rankdir, splines, measure=raster.measurer()), fmt, dpi)


def _raster_formats() -> tuple:
    from matplotlib.backend_bases import FigureCanvasBase
    return tuple(sorted(f for f in FigureCanvasBase.get_supported_filetypes() if f != "svg"))
