"""graphviz's SVG at a dpi other than 72.

graphviz (2.43 and others) writes ``dpi`` into an SVG twice: the ``width``/``height`` grow by
dpi/72, and the drawing inside is scaled by dpi/72 again (``transform="scale(...)"``) while
the ``viewBox`` keeps the unscaled size, so a browser shows only the top-left 72/dpi of the
drawing. Lamina asks graphviz for the SVG at 72 dpi (one consistent drawing on every
graphviz version) and sets the size that ``dpi`` asks for itself, as its own SVG does: the
``viewBox`` in points, ``width``/``height`` scaled by dpi/72.
"""
from __future__ import annotations

import gzip
import re

SVG_FORMATS = ("svg", "svgz", "svg_inline")
_ROOT = re.compile(rb"<svg\b[^>]*>")
_SIZE = re.compile(rb'\b(width|height)="([0-9.]+)(pt|px)?"')


def _scale_root(data: bytes, scale: float) -> bytes:
    root = _ROOT.search(data)
    if root is None:
        return data

    def resize(match):
        value = float(match.group(2)) * scale
        return b'%s="%spt"' % (match.group(1), f"{value:.2f}".rstrip("0").rstrip(".").encode())
    tag = _SIZE.sub(resize, root.group(0))
    return data[:root.start()] + tag + data[root.end():]


def resize(data: bytes, fmt: str, dpi) -> bytes:
    """graphviz's ``fmt`` output drawn at 72 dpi, sized for ``dpi`` (width/height only)."""
    scale = float(dpi) / 72.0
    if scale == 1.0:
        return data
    if fmt == "svgz":
        return gzip.compress(_scale_root(gzip.decompress(data), scale))
    return _scale_root(data, scale)
