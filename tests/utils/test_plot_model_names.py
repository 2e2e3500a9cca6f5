"""Hostile layer and model names in plot_model / model_to_dot (issue 23, item 10): control
characters, XML-invalid characters and graphviz's record-label characters must give DOT
that graphviz (and pydot's parser) accept and SVG that is well-formed XML and shows the
name; graphviz itself runs under a time limit."""
import os
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import pytest

import lamina
from lamina import layers
from lamina.utils import model_to_dot, plot_model
from lamina.utils.plotting.graph import extract
from lamina.utils.plotting.render import GraphvizError, render_bytes

SVG = "{http://www.w3.org/2000/svg}"
# name -> how the picture shows it (controls and XML-invalid characters as escapes)
NAMES = {"bell\x07": "bell\\x07", "esc\x1b[31m": "esc\\x1b[31m", "nul\x00": "nul\\x00",
         "c1\x85": "c1\\x85", "bad\ufffe": "bad\\ufffe", "del\x7f": "del\\x7f",
         "{a|<p>b}|c": "{a|<p>b}|c", "q\"uo'te&<amp;>": "q\"uo'te&<amp;>",
         "back\\slash\\": "back\\slash\\", "tab\tnl\ncr\r": "tab\\x09nl\\x0acr\\x0d",
         "dollar $\\frac$": "dollar $\\frac$"}
OPTIONS = dict(show_shapes=True, show_dtype=True, show_layer_names=True,
               show_layer_activations=True, expand_nested=True)


def _model(name):
    inner = lamina.Sequential([layers.Input((3,)), layers.Dense(2, name=name + "d")],
                              name=name + "inner")
    x = layers.Input((3,), name=name + "in")
    return lamina.Model(x, inner(x), name=name + "outer")


def _graphviz_accepts(text: str) -> None:
    if shutil.which("dot") is None:
        return
    done = subprocess.run(["dot", "-Tsvg"], input=text.encode(), capture_output=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    ET.fromstring(done.stdout)                   # graphviz's own SVG is well-formed too


@pytest.mark.parametrize("name", sorted(NAMES), ids=ascii)
@pytest.mark.parametrize("with_pydot", [True, False], ids=["pydot", "no-pydot"])
def test_dot_text_is_accepted(name, with_pydot, monkeypatch):
    if with_pydot:
        pydot = pytest.importorskip("pydot")
    else:
        monkeypatch.setitem(sys.modules, "pydot", None)
    text = model_to_dot(_model(name), **OPTIONS).to_string()
    assert "\x00" not in text and "\x07" not in text and "\x1b" not in text
    if with_pydot:
        assert pydot.graph_from_dot_data(text), text
    _graphviz_accepts(text)


@pytest.mark.parametrize("name", sorted(NAMES), ids=ascii)
def test_lamina_svg_is_xml_and_shows_the_name(name):
    graph = extract(_model(name), show_trainable=False, **OPTIONS)
    root = ET.fromstring(render_bytes(graph, "svg", use_graphviz=False))
    texts = ["".join(t.itertext()) for t in root.iter(SVG + "text")]
    shown = NAMES[name]
    assert f"{shown}d (Dense)" in texts, texts
    assert f"{shown}inner" in texts, texts         # the nested model's cluster title


def test_record_characters_are_character_references():
    label = extract(_model("{a|<p>b}|c"), show_trainable=False, **OPTIONS).nodes[-1].label
    assert "<b>&#123;a&#124;&lt;p&gt;b&#125;&#124;cd</b> (Dense)" in label.html
    assert label.rows[0][0].value == "{a|<p>b}|cd"      # the drawn text is the name itself


def test_lamina_png_for_a_hostile_name(tmp_path, monkeypatch):
    """matplotlib draws the name as text, not as mathtext ("$\\frac$" would not parse)."""
    pytest.importorskip("matplotlib")
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)    # no graphviz
    path = tmp_path / "m.png"
    plot_model(_model("dollar $\\frac$\x07"), to_file=str(path), **OPTIONS)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _children():
    me = str(os.getpid())
    found = []
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if pid.isdigit() and fields[1] == me:
            found.append(pid)
    return found


def test_a_graphviz_that_never_finishes_is_stopped(tmp_path, monkeypatch):
    slow = tmp_path / "dot"
    slow.write_text("#!/bin/sh\nexec sleep 30\n")
    slow.chmod(0o755)
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: str(slow))
    monkeypatch.setenv("LAMINA_GRAPHVIZ_TIMEOUT", "0.5")
    before = set(_children())
    started = time.monotonic()
    with pytest.raises(GraphvizError, match=r"graphviz \(.*dot -Tpng\) did not finish within "
                                            r"0.5 s \(\$LAMINA_GRAPHVIZ_TIMEOUT\)"):
        plot_model(_model("m"), to_file=str(tmp_path / "m.png"))
    assert time.monotonic() - started < 10
    assert set(_children()) <= before, "the graphviz process was left running"
    monkeypatch.setenv("LAMINA_GRAPHVIZ_TIMEOUT", "soon")
    with pytest.raises(GraphvizError, match=r"variable LAMINA_GRAPHVIZ_TIMEOUT must be a positive "
                                            r"number of seconds; received 'soon'"):
        plot_model(_model("m"), to_file=str(tmp_path / "m.png"))
