"""plot_model's own SVG in a real browser: headless Chromium lays the text out and a script
compares each label's box (getBBox) and each run's extent with its cell. Run with the fonts
installed here and with DejaVu Sans alone (a Linux desktop without Helvetica's metric
clones: the browser there drew "Helvetica" as DejaVu Sans, ~15% wider)."""
import glob
import json
import os
import re
import shutil
import subprocess

import pytest

from lamina.utils import plot_model

from .test_plot_model_svg_fit import ALL, MODELS

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or \
    shutil.which("google-chrome")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium / google-chrome "
                                                         "on the PATH to render the SVG")

# For each node's <text>: its bounding box against the <rect> before it (its cell), and
# each <tspan>'s end against the next one's start (1 unit of slack: full hinting rounds
# advances to whole pixels, and a run ends with a space). The result goes into
# <pre id="result">.
SCRIPT = """
const problems = [];
let texts = 0;
for (const svg of document.querySelectorAll('svg')) {
  for (const text of svg.querySelectorAll('g.node > text')) {
    texts += 1;
    const rect = text.previousElementSibling;
    const r = {x: +rect.getAttribute('x'), y: +rect.getAttribute('y'),
               w: +rect.getAttribute('width'), h: +rect.getAttribute('height')};
    const b = text.getBBox();
    const label = svg.id + ': ' + text.textContent;
    if (b.x < r.x || b.x + b.width > r.x + r.w || b.y < r.y || b.y + b.height > r.y + r.h)
      problems.push(label + ' overflows its cell: text ' + [b.x, b.y, b.width, b.height]
                    .map(v => v.toFixed(1)) + ', cell ' + [r.x, r.y, r.w, r.h]);
    const spans = Array.from(text.querySelectorAll('tspan'));
    for (let i = 1; i < spans.length; i++) {
      const end = spans[i - 1].getStartPositionOfChar(0).x +
                  spans[i - 1].getComputedTextLength();
      const start = spans[i].getStartPositionOfChar(0).x;
      if (end > start + 1.0)
        problems.push(label + ': "' + spans[i - 1].textContent + '" runs into "' +
                      spans[i].textContent + '" by ' + (end - start).toFixed(1));
    }
  }
}
document.getElementById('result').textContent = JSON.stringify({texts, problems});
"""

FONTS_CONF = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <dir>{directory}</dir>
  <cachedir>{cache}</cachedir>
  <alias><family>sans-serif</family><prefer><family>DejaVu Sans</family></prefer></alias>
</fontconfig>
"""


def _dejavu_directory():
    found = glob.glob("/usr/share/fonts/**/DejaVuSans.ttf", recursive=True)
    return os.path.dirname(found[0]) if found else None


def _measure(tmp_path, env) -> dict:
    svgs = []
    for name in ("small_cnn", "wide_names", "multi", "deep"):
        for rankdir in ("TB", "LR"):
            path = tmp_path / f"{name}_{rankdir}.svg"
            plot_model(MODELS[name](), to_file=path, expand_nested=True, rankdir=rankdir,
                       **ALL)
            text = path.read_text(encoding="utf-8")
            body = text[text.index("<svg"):]
            svgs.append(body.replace("<svg ", f'<svg id="{name}_{rankdir}" ', 1))
    page = tmp_path / "page.html"
    page.write_text('<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>'
                    + "\n".join(svgs) + '<pre id="result">not run</pre><script>' + SCRIPT
                    + "</script></body></html>", encoding="utf-8")
    done = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                           "--dump-dom", page.as_uri()], capture_output=True, text=True,
                          timeout=120, env=env)
    found = re.search(r'<pre id="result">(.*?)</pre>', done.stdout, re.S)
    assert found, f"chromium printed no result: {done.stderr[-2000:]}"
    raw = found.group(1).replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")
    return json.loads(raw.replace("&amp;", "&"))


@pytest.mark.parametrize("fonts", ["installed", "dejavu_only"])
def test_no_label_overflows_its_cell_in_chromium(fonts, tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)     # no graphviz
    env = dict(os.environ)
    if fonts == "dejavu_only":
        directory = _dejavu_directory()
        if directory is None:
            pytest.skip("DejaVu Sans's TTF file is not installed under /usr/share/fonts")
        conf = tmp_path / "fonts.conf"
        conf.write_text(FONTS_CONF.format(directory=directory, cache=tmp_path / "cache"))
        env["FONTCONFIG_FILE"] = str(conf)
    result = _measure(tmp_path, env)
    assert result["texts"] >= 40
    assert result["problems"] == []
