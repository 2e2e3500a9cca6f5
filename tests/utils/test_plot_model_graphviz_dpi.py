"""graphviz's SVG at dpi=200: the whole drawing shows. graphviz scales the drawing inside the
SVG by dpi/72 but keeps the viewBox unscaled, so a browser showed only the top-left third;
Lamina draws the SVG at 72 dpi and sizes it for dpi itself (lamina/utils/plotting/svg_size)."""
import gzip
import re
import shutil
import xml.etree.ElementTree as ET

import pytest

from lamina.utils import plot_model
from lamina.utils.plotting.svg_size import resize

from .test_plot_model_svg_fit import ALL, MODELS

SVG = "{http://www.w3.org/2000/svg}"
_TRANSFORM = re.compile(r"scale\(([-0-9.]+) ([-0-9.]+)\) rotate\(0\) "
                        r"translate\(([-0-9.]+) ([-0-9.]+)\)")


def _points(root):
    """Every polygon/path point of the drawing in viewBox units (graph0's transform applied:
    translate first, then scale)."""
    graph = next(g for g in root.iter(SVG + "g") if g.get("class") == "graph")
    sx, sy, tx, ty = map(float, _TRANSFORM.fullmatch(graph.get("transform")).groups())
    numbers = []
    for element in graph.iter():
        data = element.get("points") or element.get("d") or ""
        numbers += [tuple(map(float, p)) for p in re.findall(r"([-0-9.]+),([-0-9.]+)", data)]
    return [(sx * (x + tx), sy * (y + ty)) for x, y in numbers]


@pytest.mark.skipif(shutil.which("dot") is None,
                    reason="graphviz's `dot` program is not installed (apt-get install "
                           "graphviz)")
@pytest.mark.parametrize("suffix", [".svg", ".svgz"])
@pytest.mark.parametrize("dpi", [200, 96, 72])
def test_graphviz_svg_shows_the_whole_drawing_at_any_dpi(dpi, suffix, tmp_path):
    path = tmp_path / f"cnn{suffix}"
    plot_model(MODELS["small_cnn"](), to_file=path, dpi=dpi, **ALL)
    data = path.read_bytes()
    root = ET.fromstring(gzip.decompress(data) if suffix == ".svgz" else data)
    x0, y0, width, height = map(float, root.get("viewBox").split())
    points = _points(root)
    assert len(points) > 20
    assert min(x for x, _ in points) >= x0 - 1 and max(x for x, _ in points) <= x0 + width + 1
    assert min(y for _, y in points) >= y0 - 1 and max(y for _, y in points) <= y0 + height + 1
    # the drawing fills the viewBox (it is not a small corner of it)
    assert max(x for x, _ in points) - min(x for x, _ in points) > 0.9 * width
    # and the picture's size follows dpi, as Lamina's own SVG's does
    assert root.get("width").endswith("pt") and root.get("height").endswith("pt")
    assert float(root.get("width")[:-2]) == pytest.approx(width * dpi / 72, abs=0.01)
    assert float(root.get("height")[:-2]) == pytest.approx(height * dpi / 72, abs=0.01)


def test_resize_scales_only_the_root_size():
    svg = (b'<?xml version="1.0"?>\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x">\n'
           b'<svg width="62pt" height="116pt" viewBox="0.00 0.00 62.00 116.00">'
           b'<g><rect width="10" height="20"/></g></svg>')
    out = resize(svg, "svg", 144)
    assert b'<svg width="124pt" height="232pt" viewBox="0.00 0.00 62.00 116.00">' in out
    assert b'<rect width="10" height="20"/>' in out
    assert gzip.decompress(resize(gzip.compress(svg), "svgz", 144)) == out
    assert resize(svg, "svg", 72) == svg
