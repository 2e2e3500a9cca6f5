"""model_to_dot: the nodes, labels, edges and clusters Keras 3.15.1 writes for the same
models (tests/fixtures/plot_model_keras.json), with pydot and with Lamina's DotGraph."""
import json
import os
import re
import sys

import pytest

import lamina
from lamina import layers
from lamina.utils import model_to_dot, plot_model
from lamina.utils.plotting import DotGraph

from .plot_models import BUILDERS, key_names

HERE = os.path.dirname(__file__)
with open(os.path.join(HERE, "..", "fixtures", "plot_model_keras.json")) as f:
    KERAS = json.load(f)

OPTIONS = {
    "plain": {},
    "full": dict(show_shapes=True, show_dtype=True, show_layer_activations=True,
                 show_trainable=True),
    "noname_shapes": dict(show_layer_names=False, show_shapes=True),
    "nested_full": dict(expand_nested=True, show_shapes=True, show_trainable=True),
}


@pytest.fixture(params=["pydot", "no-pydot"])
def pydot_mode(request, monkeypatch):
    if request.param == "pydot":
        pytest.importorskip("pydot", reason="pydot is not installed (the test extra has it)")
    else:
        monkeypatch.setitem(sys.modules, "pydot", None)     # import pydot -> ImportError
    return request.param


def describe(dot, names):
    out = {"nodes": {}, "edges": [], "clusters": {}}
    for node in dot.get_nodes():
        if node.get_name() in ("node", "edge", "graph"):
            continue
        out["nodes"][names[node.get_name()]] = node.get("label")
    out["edges"] = sorted([names[str(e.get_source())], names[str(e.get_destination())]]
                          for e in dot.get_edges())
    for sub in dot.get_subgraphs():
        out["clusters"][sub.get_name()] = describe(sub, names)
    return out


def keras_view(entry):
    return {"nodes": entry["nodes"], "edges": sorted(entry["edges"]),
            "clusters": {k: keras_view(v) for k, v in entry["clusters"].items()}}


@pytest.mark.parametrize("key", sorted(KERAS))
def test_nodes_labels_edges_and_clusters_equal_keras(key, pydot_mode):
    model_name, option = key.split("/")
    model = BUILDERS[model_name]()
    dot = model_to_dot(model, **OPTIONS[option])
    assert describe(dot, key_names(model)) == keras_view(KERAS[key])
    if pydot_mode == "no-pydot":
        assert isinstance(dot, DotGraph)
    else:
        import pydot
        assert isinstance(dot, pydot.Dot)


def test_graph_attributes_as_keras(pydot_mode):
    dot = model_to_dot(BUILDERS["vgg"](), rankdir="LR", dpi=96, splines="curved")
    got = {k: str(dot.get(k)) for k in ("rankdir", "concentrate", "dpi", "splines")}
    assert got == {"rankdir": "LR", "concentrate": "True", "dpi": "96", "splines": "curved"}
    assert str(KERAS["vgg/plain"]["attrs"]["concentrate"]) == "True"
    node = dot.get_nodes()[-1]
    assert (node.get("fontname"), str(node.get("border")), str(node.get("margin"))) == \
        ("Helvetica", "0", "0")
    assert str(dot.get_edges()[0].get("penwidth")) == "2"


def test_dot_text_has_one_statement_per_node_and_edge(pydot_mode):
    model = BUILDERS["outer"]()
    text = model_to_dot(model, expand_nested=True, show_shapes=True).to_string()
    assert text.startswith("digraph")
    for k, v in (("rankdir", "TB"), ("splines", "ortho"), ("dpi", "200")):
        assert re.search(rf"\b{k}={v};", text)
    names = key_names(model)
    declared = re.findall(r"^\s*(\d+) \[label=<<table", text, flags=re.M)
    edges = re.findall(r"^\s*(\d+) -> (\d+) \[penwidth=2\];", text, flags=re.M)
    assert sorted(names[k] for k in declared) == sorted(
        ["x", "pre", "inner_in", "inner_dense", "inner_out", "head"])
    assert sorted((names[a], names[b]) for a, b in edges) == sorted(
        [("x", "pre"), ("pre", "inner_in"), ("inner_in", "inner_dense"),
         ("inner_dense", "inner_out"), ("inner_out", "head")])
    cluster = text[text.index("subgraph cluster_inner {"):]
    for statement in ("label=inner", "labeljust=l", "style=dashed"):
        assert re.search(rf"\b{statement}\b", cluster[:cluster.index("->")])


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_dot_text_reads_back_with_pydot():
    """Lamina's own DOT text parses, with Keras's labels and one edge per connection."""
    pydot = pytest.importorskip("pydot", reason="pydot is not installed")
    model = BUILDERS["multi"]()
    text = _own_dot(model, **OPTIONS["noname_shapes"]).to_string()
    graph, = pydot.graph_from_dot_data(text)
    nodes = [n for n in graph.get_nodes() if n.get_name() not in ("node", "graph", "edge")]
    assert len(nodes) == 8 and len(graph.get_edges()) == 7
    assert sorted(n.get("label") for n in nodes) == \
        sorted(KERAS["multi/noname_shapes"]["nodes"].values())


def _own_dot(model, **options):
    saved = sys.modules.get("pydot")
    sys.modules["pydot"] = None
    try:
        return model_to_dot(model, **options)
    finally:
        if saved is None:
            del sys.modules["pydot"]
        else:
            sys.modules["pydot"] = saved


def test_subgraph_returns_the_model_as_one_cluster(pydot_mode):
    model = BUILDERS["siamese"]()
    dot = model_to_dot(model, subgraph=True)
    assert dot.get_name() == "cluster_siamese"
    assert str(dot.get("label")) == "siamese" and str(dot.get("style")) == "dashed"
    names = key_names(model)
    assert sorted(names[n.get_name()] for n in dot.get_nodes()
                  if n.get_name() not in ("node", "graph", "edge")) == \
        ["add", "left", "right", "shared"]
    assert len(dot.get_edges()) == 3
    assert dot.to_string().lstrip().startswith("subgraph cluster_siamese")


def test_subclassed_model_is_one_box(pydot_mode):
    class Net(lamina.Model):
        def __init__(self):
            super().__init__(name="net")
            self.dense = layers.Dense(2)

        def call(self, x):
            return self.dense(x)

    net = Net()
    net.build((None, 3))
    net(lamina.ops.zeros((1, 3)))
    dot = model_to_dot(net)
    labels = [n.get("label") for n in dot.get_nodes()
              if n.get_name() not in ("node", "graph", "edge")]
    assert labels == ['<<table border="0" cellborder="1" bgcolor="black" cellpadding="10">'
                      '<tr><td colspan="1" bgcolor="black"><font point-size="16" '
                      'color="white"><b>net</b> (Net)</font></td></tr></table>>']
    assert dot.get_edges() == []


def test_dot_graph_create_and_write(tmp_path, monkeypatch):
    monkeypatch.setattr("shutil.which", lambda name: None)
    dot = _own_dot(BUILDERS["vgg"]())
    svg = dot.create(format="svg")
    assert svg.startswith(b"<?xml") and svg.count(b'<g class="node"') == 9
    dot.write(tmp_path / "m.dot")
    assert (tmp_path / "m.dot").read_text() == dot.to_string()
    assert dot.get_edge(dot.get_nodes()[0].get_name(), dot.get_nodes()[1].get_name())


@pytest.mark.parametrize("function", [model_to_dot, plot_model])
def test_errors(function, tmp_path):
    unbuilt = lamina.Sequential([layers.Dense(2)])
    name = function.__name__
    with pytest.raises(ValueError, match=rf"{name}: the model .* has not yet been built"):
        function(unbuilt)
    model = BUILDERS["vgg"]()
    extra = {"to_file": str(tmp_path / "m.svg")} if function is plot_model else {}
    with pytest.raises(ValueError, match="`layer_range` is no longer supported"):
        function(model, layer_range=["a", "b"], **extra)
    with pytest.raises(ValueError, match=r"unrecognized keyword arguments: \{'colour': 1\}"):
        function(model, colour=1, **extra)
    with pytest.raises(ValueError, match=r"`rankdir` must be one of \['TB', 'LR', 'BT', "
                                         r"'RL'\].*received 'XY'"):
        function(model, rankdir="XY", **extra)
    with pytest.raises(ValueError, match="`splines` must be one of .*received 'wavy'"):
        function(model, splines="wavy", **extra)
    with pytest.raises(ValueError, match="`dpi` must be a positive number; received 0"):
        function(model, dpi=0, **extra)
