"""plot_model's own SVG (no graphviz) sets its text in DejaVu Sans, the font it measures
with, so every label fits its box: checked against the shipped advance widths here and in a
real browser (headless Chromium) in test_plot_model_svg_browser.py."""
import os
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest

import lamina
from lamina import layers
from lamina.utils import plot_model
from lamina.utils.plotting.font_metrics import text_width

from .plot_models import BUILDERS

SVG = "{http://www.w3.org/2000/svg}"
ALL = dict(show_shapes=True, show_dtype=True, show_layer_names=True,
           show_layer_activations=True, show_trainable=True)
DEJAVU = "/usr/share/fonts/truetype/dejavu"


def small_cnn():
    return lamina.Sequential([
        lamina.Input((32, 32, 3)),
        layers.Conv2D(32, 3, activation="relu", name="conv1"),
        layers.MaxPooling2D(name="pool1"),
        layers.Conv2D(64, 3, activation="relu", name="conv2"),
        layers.GlobalAveragePooling2D(name="gap"),
        layers.Dense(10, activation="softmax", name="classifier")], name="small_cnn")


def wide_names():
    """Wide letters (W, m, %), non-ASCII and a long nested model name."""
    i = lamina.Input((4,), name="WWW_mmm_input")
    h = layers.Dense(8, name="Größe_Ωμέγα_Жук_WWWWmmmm")(i)
    inner_in = lamina.Input((8,), name="in")
    inner = lamina.Model(inner_in, layers.Dense(2, name="d")(inner_in),
                         name="a_nested_model_with_a_rather_long_name_WWWW")
    return lamina.Model(i, inner(h), name="wide")


MODELS = dict(BUILDERS, small_cnn=small_cnn, wide_names=wide_names)


@pytest.fixture
def no_graphviz(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)


def _svg(name, tmp_path, rankdir="TB", options=ALL):
    path = tmp_path / f"{name}.svg"
    plot_model(MODELS[name](), to_file=path, expand_nested=True, rankdir=rankdir, **options)
    return ET.parse(path).getroot()


def _n(element, attribute) -> float:
    return float(element.get(attribute))


def cells(root):
    """(cell rect, text element) pairs: each node's <text> follows its cell's <rect>."""
    pairs = []
    for group in root.iter(SVG + "g"):
        if group.get("class") != "node":
            continue
        children = list(group)
        for before, element in zip(children, children[1:]):
            if element.tag == SVG + "text":
                assert before.tag == SVG + "rect"
                pairs.append((before, element))
    return pairs


@pytest.mark.parametrize("rankdir", ["TB", "LR"])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_label_fits_its_cell_in_the_font_the_svg_names(name, rankdir, tmp_path,
                                                             no_graphviz):
    root = _svg(name, tmp_path, rankdir)
    pairs = cells(root)
    assert pairs
    for rect, text in pairs:
        assert text.get("font-family").split(",")[0].strip("'\" ") == "DejaVu Sans"
        size = _n(text, "font-size")
        left, right = _n(rect, "x"), _n(rect, "x") + _n(rect, "width")
        end = left
        for span in text.iter(SVG + "tspan"):
            x = _n(span, "x")
            width = text_width(span.text, size, span.get("font-weight") == "bold")
            label = "".join(text.itertext())
            assert x >= end - 0.01, f"{label!r}: {span.text!r} overlaps the run before it"
            assert x >= left + 10, f"{label!r} starts outside its cell"
            assert x + width <= right - 10 + 0.01, (
                f"{label!r} ends at {x + width:.2f}, past its cell's padding ({right - 10:.2f})")
            end = x + width


@pytest.mark.parametrize("rankdir", ["TB", "LR"])
@pytest.mark.parametrize("options", [ALL, {}], ids=["all", "plain"])
@pytest.mark.parametrize("name", ["deep", "outer", "wide_names"])
def test_cluster_titles_fit_their_frames(name, options, rankdir, tmp_path, no_graphviz):
    """A nested model's title is as wide as its frame at least (graphviz widens a
    cluster for its label too)."""
    root = _svg(name, tmp_path, rankdir, options)
    groups = [g for g in root.iter(SVG + "g") if g.get("class") == "cluster"]
    assert groups
    for group in groups:
        rect, text = group.find(SVG + "rect"), group.find(SVG + "text")
        width = text_width(text.text, _n(text, "font-size"))
        assert _n(text, "x") + width <= _n(rect, "x") + _n(rect, "width") - 8 + 0.01, text.text
        _, _, view_width, _ = map(float, root.get("viewBox").split())
        assert 0 <= _n(rect, "x") and _n(rect, "x") + _n(rect, "width") <= view_width


def test_widths_are_dejavu_sans_advances():
    # DejaVu Sans 2.37, units per em 2048: " " 651, ":" 690, "0" 1303, "W" 2025, "m" 1995;
    # Bold "W" 2259 (read from the TTF files with fontTools)
    assert text_width(" :0Wm", 2048) == 651 + 690 + 1303 + 2025 + 1995
    assert text_width("W", 2048, bold=True) == 2259
    assert text_width("漢", 10) == 10.0            # outside the table: one em
    assert text_width("e\u0301", 2048) == text_width("e", 2048)    # a combining accent


@pytest.mark.skipif(not os.path.exists(os.path.join(DEJAVU, "DejaVuSans.ttf")),
                    reason=f"DejaVu Sans's TTF files are not in {DEJAVU}")
def test_the_table_matches_the_installed_font():
    ttlib = pytest.importorskip("fontTools.ttLib", reason="fontTools is not installed")
    for name, bold in (("DejaVuSans.ttf", False), ("DejaVuSans-Bold.ttf", True)):
        font = ttlib.TTFont(os.path.join(DEJAVU, name))
        units = font["head"].unitsPerEm
        cmap, hmtx = font.getBestCmap(), font["hmtx"]
        sample = "Output shape: (None, 32, 32, 3) float32 Größe Ωμέγα Жук ─│"
        expected = sum(hmtx[cmap[ord(c)]][0] for c in sample)
        assert text_width(sample, units, bold) == pytest.approx(expected)
