"""plot_model's pictures: graphviz when installed, else Lamina's layout (SVG with no
dependency, PNG/PDF through matplotlib), and the geometry of that layout."""
import os
import shutil
import stat
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from lamina.utils import plot_model
from lamina.utils.plotting.graph import extract
from lamina.utils.plotting.place import layout
from lamina.utils.plotting.render import GraphvizError

from .plot_models import BUILDERS

SVG = "{http://www.w3.org/2000/svg}"
# (boxes, edges) of each model drawn with expand_nested=True
COUNTS = {"outer": (6, 5), "multi": (8, 7), "siamese": (4, 3), "residual": (3, 3),
          "deep": (6, 5), "vgg": (9, 8)}
CLUSTERS = {"outer": 1, "deep": 2}
ALL = dict(show_shapes=True, show_dtype=True, show_layer_names=True,
           show_layer_activations=True, show_trainable=True)


@pytest.fixture
def no_graphviz(monkeypatch):
    """graphviz is absent: the fallback must be taken and no program run."""
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)

    def refuse(*args, **kwargs):
        raise AssertionError(f"a program was run: {args}")
    monkeypatch.setattr(subprocess, "run", refuse)


@pytest.mark.parametrize("name", sorted(COUNTS))
@pytest.mark.parametrize("rankdir", ["TB", "LR"])
def test_svg_is_xml_with_one_box_per_layer_and_one_edge_per_connection(
        name, rankdir, tmp_path, no_graphviz):
    path = tmp_path / "model.svg"
    plot_model(BUILDERS[name](), to_file=path, expand_nested=True, rankdir=rankdir, **ALL)
    root = ET.parse(path).getroot()
    assert root.tag == SVG + "svg"
    groups = root.findall(f"{SVG}g")
    kinds = [g.get("class") for g in groups]
    assert (kinds.count("node"), kinds.count("edge")) == COUNTS[name]
    assert kinds.count("cluster") == CLUSTERS.get(name, 0)
    texts = " ".join("".join(t.itertext()) for t in root.iter(SVG + "text"))
    assert "Output shape: (None, " in texts and "Output dtype: float32" in texts


@pytest.mark.parametrize("dpi", [72, 200])
def test_svg_size_follows_dpi_as_graphviz(dpi, tmp_path, no_graphviz):
    path = tmp_path / "m.svg"
    plot_model(BUILDERS["vgg"](), to_file=path, dpi=dpi)
    root = ET.parse(path).getroot()
    _, _, w, h = map(float, root.get("viewBox").split())
    drawing = layout(extract(BUILDERS["vgg"](), expand_nested=False, show_shapes=False,
                             show_dtype=False, show_layer_names=False,
                             show_layer_activations=False, show_trainable=False))
    assert (w, h) == (pytest.approx(drawing.width, abs=0.01),
                      pytest.approx(drawing.height, abs=0.01))
    assert float(root.get("width")[:-2]) == pytest.approx(w * dpi / 72, abs=0.01)
    assert float(root.get("height")[:-2]) == pytest.approx(h * dpi / 72, abs=0.01)


def _overlap(a, b) -> bool:
    return (abs(a.x - b.x) * 2 < a.width + b.width) and (abs(a.y - b.y) * 2 < a.height + b.height)


@pytest.mark.parametrize("name", sorted(COUNTS))
@pytest.mark.parametrize("rankdir", ["TB", "LR", "BT", "RL"])
@pytest.mark.parametrize("splines", ["ortho", "line", "curved"])
def test_layout_geometry(name, rankdir, splines):
    model = BUILDERS[name]()
    graph = extract(model, expand_nested=True, **ALL)
    drawing = layout(graph, rankdir, splines)
    boxes = {b.key: b for b in drawing.boxes}
    assert len(boxes) == len(graph.nodes)
    keys = list(boxes)
    for i, a in enumerate(keys):                 # no two boxes overlap
        for b in keys[i + 1:]:
            assert not _overlap(boxes[a], boxes[b]), (a, b)
        box = boxes[a]                           # and all lie inside the picture
        assert 0 <= box.x - box.width / 2 and box.x + box.width / 2 <= drawing.width
        assert 0 <= box.y - box.height / 2 and box.y + box.height / 2 <= drawing.height
    assert len(drawing.edges) == len(graph.pairs())
    for (source, destination), (commands, arrow) in zip(graph.pairs(), drawing.edges):
        tip = arrow[0]
        src, dst = boxes[source], boxes[destination]
        start = commands[0][1]
        if rankdir == "TB":          # leaves the bottom of its source, ends on top of its
            assert start[1] == pytest.approx(src.y + src.height / 2)          # destination
            assert tip[1] == pytest.approx(dst.y - dst.height / 2)
            assert abs(tip[0] - dst.x) <= dst.width / 2
        elif rankdir == "LR":
            assert start[0] == pytest.approx(src.x + src.width / 2)
            assert tip[0] == pytest.approx(dst.x - dst.width / 2)
            assert abs(tip[1] - dst.y) <= dst.height / 2
        elif rankdir == "BT":
            assert tip[1] == pytest.approx(dst.y + dst.height / 2)
        else:
            assert tip[0] == pytest.approx(dst.x + dst.width / 2)
        if splines == "ortho":       # right angles only
            points = [start] + [c[-1] for c in commands[1:]]
            for p, q in zip(points, points[1:]):
                assert p[0] == pytest.approx(q[0]) or p[1] == pytest.approx(q[1])
    for x, y, w, h, title, _ in drawing.clusters:   # a cluster frames its model's boxes
        members = [n.key for n in graph.nodes if f"cluster_{title}" in n.clusters]
        assert members
        for k in members:
            b = boxes[k]
            assert x < b.x - b.width / 2 and b.x + b.width / 2 < x + w
            assert y < b.y - b.height / 2 and b.y + b.height / 2 < y + h
        for k in set(boxes) - set(members):
            assert not _overlap(boxes[k], type(boxes[k])(k, w, h, [], x + w / 2, y + h / 2))


def test_ranks_follow_the_edges():
    graph = extract(BUILDERS["multi"](), expand_nested=False, **ALL)
    boxes = {b.key: b for b in layout(graph).boxes}
    for source, destination in graph.pairs():
        assert boxes[source].y < boxes[destination].y


@pytest.mark.parametrize("suffix,magic", [(".png", b"\x89PNG\r\n\x1a\n"), (".pdf", b"%PDF-"),
                                          ("", b"\x89PNG\r\n\x1a\n")])
def test_png_and_pdf_without_graphviz(suffix, magic, tmp_path, no_graphviz):
    pytest.importorskip("matplotlib", reason="the plots extra (matplotlib) is not installed")
    path = tmp_path / f"model{suffix}"
    result = plot_model(BUILDERS["outer"](), to_file=str(path), expand_nested=True, dpi=50,
                        **ALL)
    data = path.read_bytes()
    assert data.startswith(magic)
    if suffix != ".pdf":
        from PIL import Image
        image = Image.open(path)
        drawing = layout(extract(BUILDERS["outer"](), expand_nested=True, **ALL))
        # dpi 50: the picture's points at 50/72 pixels each (the layout measures text with
        # matplotlib's font here, so the size is close to, not equal to, the SVG's)
        assert image.size[0] == pytest.approx(drawing.width * 50 / 72, rel=0.15)
        assert image.size[1] == pytest.approx(drawing.height * 50 / 72, rel=0.15)
        try:
            from IPython import display
        except ImportError:
            assert result is None
        else:                        # a notebook shows the picture
            assert isinstance(result, display.Image) and result.data == data


def test_png_past_the_canvas_limit_is_written_smaller_with_a_warning(tmp_path, no_graphviz,
                                                                    monkeypatch):
    pytest.importorskip("matplotlib", reason="the plots extra (matplotlib) is not installed")
    from PIL import Image
    from lamina.utils.plotting import raster
    monkeypatch.setattr(raster, "MAX_PIXELS", 300)
    path = tmp_path / "m.png"
    with pytest.warns(UserWarning, match=r"plot_model: at dpi=200 the picture would be "
                                         r"\d+ pixels long, past the 300 that matplotlib "
                                         r"draws; writing it at dpi=\d+"):
        plot_model(BUILDERS["vgg"](), to_file=path, dpi=200)
    assert max(Image.open(path).size) <= 301


def test_png_without_graphviz_or_matplotlib_names_the_extra(tmp_path, no_graphviz,
                                                            monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"\.png file needs graphviz's `dot` program or "
                                          r"matplotlib.*pip install lamina\[plots\]"):
        plot_model(BUILDERS["vgg"](), to_file=tmp_path / "m.png")
    assert not (tmp_path / "m.png").exists()
    plot_model(BUILDERS["vgg"](), to_file=tmp_path / "m.svg")      # svg needs nothing
    plot_model(BUILDERS["vgg"](), to_file=tmp_path / "m.dot")      # nor does dot
    assert (tmp_path / "m.svg").read_bytes().startswith(b"<?xml")


def test_dot_file_without_graphviz_is_the_dot_text(tmp_path, no_graphviz):
    from lamina.utils import model_to_dot
    model = BUILDERS["multi"]()
    plot_model(model, to_file=tmp_path / "m.dot", show_shapes=True)
    text = (tmp_path / "m.dot").read_text()
    sys_pydot = sys.modules.get("pydot")
    sys.modules["pydot"] = None
    try:
        expected = model_to_dot(model, show_shapes=True, show_layer_names=False).to_string()
    finally:
        if sys_pydot is None:
            del sys.modules["pydot"]
        else:
            sys.modules["pydot"] = sys_pydot
    assert text == expected and text.count(" -> ") == 7


def test_unknown_format_without_graphviz(tmp_path, no_graphviz):
    pytest.importorskip("matplotlib", reason="the plots extra (matplotlib) is not installed")
    with pytest.raises(ValueError, match=r"cannot write a \.xyz file without graphviz; "
                                         r"Lamina's own drawing writes dot, svg, .*png"):
        plot_model(BUILDERS["vgg"](), to_file=tmp_path / "m.xyz")


def _fake_dot(tmp_path, body: str) -> str:
    program = tmp_path / "dot"
    program.write_text(f"#!{sys.executable}\nimport sys\n{body}\n")
    program.chmod(program.stat().st_mode | stat.S_IEXEC)
    return str(program)


def test_graphviz_is_used_when_installed(tmp_path, monkeypatch):
    """With a `dot` program on the PATH, plot_model gives it the DOT text and -T<format>
    and writes what it prints (a stand-in program records both)."""
    program = _fake_dot(tmp_path, (
        "text = sys.stdin.read()\n"
        f"open({str(tmp_path / 'seen.txt')!r}, 'w').write(' '.join(sys.argv[1:]) + '\\n' "
        "+ text)\nsys.stdout.write('PICTURE')"))
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: program if name == "dot"
                        else None)
    model = BUILDERS["siamese"]()
    plot_model(model, to_file=tmp_path / "m.pdf", rankdir="LR", dpi=72)
    assert (tmp_path / "m.pdf").read_text() == "PICTURE"
    seen = (tmp_path / "seen.txt").read_text()
    assert seen.startswith("-Tpdf\ndigraph G {")
    assert "rankdir=LR;" in seen and "dpi=72;" in seen and seen.count(" -> ") == 3


def test_graphviz_failure_is_reported(tmp_path, monkeypatch):
    program = _fake_dot(tmp_path, "sys.stderr.write('Error: syntax'); sys.exit(3)")
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: program)
    with pytest.raises(GraphvizError, match=r"graphviz \(.*dot -Tpng\) failed with exit "
                                            r"status 3: Error: syntax"):
        plot_model(BUILDERS["vgg"](), to_file=tmp_path / "m.png")


@pytest.mark.skipif(shutil.which("dot") is None,
                    reason="graphviz's `dot` program is not installed here (no apt); "
                           "the stand-in program tests cover the call")
@pytest.mark.parametrize("suffix,magic", [(".png", b"\x89PNG"), (".svg", b"<?xml"),
                                          (".pdf", b"%PDF"), (".dot", b"digraph")])
def test_real_graphviz(suffix, magic, tmp_path):
    path = tmp_path / f"m{suffix}"
    plot_model(BUILDERS["outer"](), to_file=path, expand_nested=True, **ALL)
    data = path.read_bytes()
    assert data.startswith(magic)
    if suffix == ".dot":             # graphviz's own layout, as Keras writes .dot files
        assert b"pos=" in data and b"cluster_inner" in data
    if suffix == ".svg":
        root = ET.fromstring(data)
        kinds = [g.get("class") for g in root.iter(SVG + "g")]
        assert (kinds.count("node"), kinds.count("edge"), kinds.count("cluster")) == (6, 5, 1)
