"""to_dot draws a graph; model.graph / graph_report show it before and after the passes."""
import re

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.graph import to_dot
from lamina.graph.passes import PIPELINE

OP_LINE = re.compile(r'^  (op\d+) \[shape=box.*label="([^"\\]*(?:\\.[^"\\]*)*)"\];$', re.M)
EDGE = re.compile(r"^  (\w+) -> (\w+)(?: \[(.*)\])?;$", re.M)
DECLARED = re.compile(r"^  (\w+) \[", re.M)


def _mlp():
    lamina.utils.set_random_seed(3)
    return lamina.Sequential([lamina.Input((6,)), layers.Dense(8, activation="relu",
                                                               name="hidden"),
                              layers.Dropout(0.25, seed=2, name="drop"),
                              layers.Dense(3, name="logits")], name="mlp")


def _x(rows=4):
    return np.random.default_rng(0).standard_normal((rows, 6)).astype("float32")


def _check_well_formed(text):
    assert text.startswith('digraph "') and text.rstrip().endswith("}")
    assert text.count("{") == text.count("}") == 1
    declared = set(DECLARED.findall(text))
    for source, target, _ in EDGE.findall(text):
        assert source in declared and target in declared, (source, target)


def test_one_box_per_node_with_op_attrs_shape_and_layer():
    model = _mlp()
    graph = model.graph(_x(), passes=[])
    text = to_dot(graph)
    _check_well_formed(text)
    boxes = OP_LINE.findall(text)
    assert len(boxes) == len(graph.nodes)
    for (_, label), node in zip(boxes, graph.nodes):
        lines = label.split("\\n")
        assert lines[0] == node.op.name
        assert f"({', '.join(str(d) for d in node.outputs[0].shape)}" in label
        assert lines[-1] == f"[{node.layer}]"
    assert "[mlp/hidden]" in text and "[mlp/logits]" in text
    assert 'shape=invhouse' in text and 'label="input_0\\n(None, 6) float32"' in text
    assert text.count("shape=cylinder") == len(graph.variables)
    assert 'label="hidden/kernel\\n(6, 8) float32"' in text
    assert text.count("shape=house") == len(graph.flat_outputs)


def test_every_data_input_is_one_edge():
    graph = _mlp().graph(_x(), passes=[])
    text = to_dot(graph)
    solid = [e for e in EDGE.findall(text) if "dashed" not in e[2]]
    expected = sum(len(node.inputs) for node in graph.nodes) + len(graph.flat_outputs)
    assert len(solid) == expected


def test_constants_and_multi_output_nodes():
    def f(x):
        a, b = ops.split(x * 2.0, 2, axis=1)
        return a + b
    graph = lamina.jit(f, passes=[]).trace(ops.ones((2, 4)))
    text = to_dot(graph, title='split "demo"')
    _check_well_formed(text)
    assert 'digraph "split \\"demo\\""' in text
    assert 'label="constant\\n2 float32"' in text and "shape=note" in text
    assert 'taillabel="0"' in text and 'taillabel="1"' in text


def test_updates_are_dashed_edges_into_their_variables():
    model = _mlp()
    model.compile(optimizer="sgd", loss="mse")
    y = np.zeros((4, 3), "float32")
    graph = model.graph(_x(), y, step="train")
    assert graph.updates
    text = to_dot(graph)
    _check_well_formed(text)
    dashed = [e for e in EDGE.findall(text) if "style=dashed" in e[2]]
    assert len(dashed) == len(graph.updates)
    variable_ids = {m for m in DECLARED.findall(text) if m.startswith(("var", "written"))}
    assert all(target in variable_ids for _, target, _ in dashed)
    kernel = re.search(r'(var\d+) \[shape=cylinder.*label="hidden/kernel\\n', text).group(1)
    assert any(target == kernel for _, target, _ in dashed)


def test_graph_before_and_after_the_passes_and_the_report():
    model = _mlp()
    x = _x()
    before, after = model.graph(x, passes=[]), model.graph(x)
    report = model.graph_report(x)
    assert [r.name for r in report] == [name for name, _ in PIPELINE]
    if report:
        assert report[0].before == len(before.nodes)
        assert report[-1].after == len(after.nodes)
        assert all(a.after == b.before for a, b in zip(report, report[1:]))
    assert len(OP_LINE.findall(to_dot(after))) == len(after.nodes) <= len(before.nodes)
    assert model.graph_report(x, passes=[]) == []


def test_graph_is_what_predict_runs_and_tracing_changes_nothing():
    model = _mlp()
    x = _x()
    weights = model.get_weights()
    graph = model.graph(x)
    assert model.predict_function.function.trace_count == 1
    model.predict(x, batch_size=4, verbose=0)
    assert model.predict_function.function.trace_count == 1        # the same trace
    assert graph is model.graph(x)
    for a, b in zip(weights, model.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_graph_builds_an_unbuilt_model_and_the_optimizer():
    model = lamina.Sequential([layers.Dense(2)])
    graph = model.graph(_x())
    assert model.built and graph.nodes
    model.compile(optimizer="adam", loss="mse")
    train = model.graph(_x(), np.zeros((4, 2), "float32"), step="train")
    assert model.optimizer.built and len(train.updates) > len(model.trainable_weights)


def test_graph_argument_errors():
    model = _mlp()
    with pytest.raises(ValueError, match=r"mlp.graph: argument 'step' must be one of "
                                         r"\('predict', 'train', 'test'\); received 'fit'"):
        model.graph(_x(), step="fit")
    with pytest.raises(ValueError, match=r"mlp.graph: unknown pass name\(s\) \['nope'\]"):
        model.graph(_x(), passes=["nope"])
    with pytest.raises(Exception, match=r"compile"):
        model.graph(_x(), np.zeros((4, 3), "float32"), step="train")
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(ValueError, match=r"mlp.graph: step='test' needs targets 'y'"):
        model.graph(_x(), step="test")
