"""Text widths in DejaVu Sans, the font plot_model's own SVG names first: the advance widths
of its Book and Bold faces (dejavu_sans_widths.json, extracted from the TTF files by
tests/fixtures/make_dejavu_metrics.py; no font library is needed to read them).

Browsers on Linux draw "Helvetica" with whatever fontconfig substitutes, often DejaVu Sans,
which is about 15% wider; measuring with the font the SVG asks for keeps labels in their
boxes. A font named after it in the SVG's ``font-family`` (Helvetica, Arial) is narrower,
so text drawn with one of them still fits.
"""
from __future__ import annotations

import functools
import json
import unicodedata
from importlib import resources

FAMILY = "DejaVu Sans"
# Quoted for CSS inside an SVG attribute: DejaVu Sans first, narrower look-alikes after.
FONT_FAMILY = "'DejaVu Sans', Helvetica, Arial, sans-serif"
WIDE = 1.0            # em: a character outside the table (CJK and the like are 1 em)


@functools.lru_cache(maxsize=None)
def _tables() -> dict:
    text = resources.files(__package__).joinpath("dejavu_sans_widths.json").read_text("utf-8")
    data = json.loads(text)
    units = float(data["units_per_em"])
    return {bold: {c: w / units for c, w in zip(data[face]["chars"], data[face]["widths"])}
            for bold, face in ((False, "regular"), (True, "bold"))}


def _fallback(ch: str) -> float:
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0.0
    return WIDE


def text_width(text: str, size: float, bold: bool = False) -> float:
    """The advance width of ``text`` at ``size`` (points or SVG user units) in DejaVu Sans
    (Bold when ``bold``); characters the table lacks count one em."""
    table = _tables()[bool(bold)]
    return sum(table[ch] if ch in table else _fallback(ch) for ch in text) * size
