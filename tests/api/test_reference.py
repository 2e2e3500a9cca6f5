"""Issue 24 item 10: the API reference (docs/build_reference.py, pdoc) builds offline from
the docstrings, and every public name of Keras's namespaces has a docstring; the
namespaces in KERAS_FORM have them in Keras's form (a summary line, then Args:)."""
import importlib.util
import os
import re
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
DOCS = os.path.join(HERE, "..", "..", "docs")
sys.path.insert(0, DOCS)
import build_reference  # noqa: E402

# Namespaces whose every class and function taking arguments documents them (Args:).
KERAS_FORM = ("keras.datasets", "keras.export", "keras.callbacks", "keras.saving",
              "keras.models", "keras.distribution", "keras.dtype_policies", "keras.backend",
              "keras.preprocessing", "keras.mixed_precision", "keras.optimizers.schedules",
              "keras.initializers", "keras.activations", "keras.losses", "keras.tree",
              "keras.random", "keras.regularizers", "keras.constraints", "keras.config",
              "keras.ops.nn", "keras.ops.image", "keras.ops.linalg", "keras.layers",
              "keras.ops", "keras.ops.numpy", "keras.metrics", "keras.optimizers",
              "keras.quantizers", "keras.utils", "keras.applications", "keras")


def test_every_public_name_has_a_docstring():
    assert build_reference.gaps()["missing"] == []


def test_the_namespaces_in_keras_form_stay_so():
    assert build_reference.gaps(KERAS_FORM)["not in Keras's form"] == []


@pytest.mark.slow
def test_the_reference_builds_a_page_per_namespace(tmp_path):
    assert importlib.util.find_spec("pdoc"), 'pip install -e ".[docs]"'
    pages = build_reference.build(str(tmp_path))
    assert "lamina.layers" in pages and "lamina.ops.nn" in pages
    for module in pages:
        path = tmp_path.joinpath(*module.split(".")).with_suffix(".html")
        assert path.is_file(), path
    layers = (tmp_path / "lamina" / "layers.html").read_text()
    assert 'id="Dense"' in layers and "A fully connected layer" in layers
    assert not (tmp_path / "lamina" / "layers" / "core").exists()      # no internals
    # the getting-started page and the topic pages link into pages the build wrote
    links = set()
    for page in os.listdir(DOCS):
        if page.endswith(".md"):
            with open(os.path.join(DOCS, page)) as f:
                links |= set(re.findall(r"\((reference/[\w/]+\.html)\)", f.read()))
    assert len(links) >= 8
    for link in links:
        assert (tmp_path / link.removeprefix("reference/")).is_file(), link
