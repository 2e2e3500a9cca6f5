"""The fuse pass: conv/dense + bias + activation chains become one fused node, with the
unfused graph's and eager mode's numbers."""
import collections
import importlib.util
import pathlib

import numpy as np
import pytest

import lamina
from lamina import layers, ops

EXAMPLES = pathlib.Path(__file__).resolve().parents[3] / "examples"


def load_example(name: str):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def op_counts(graph) -> collections.Counter:
    return collections.Counter(node.op.name for node in graph.nodes)


def predict(model, x, passes):
    """(graph, result) of ``model(x, training=False)`` compiled with ``passes``."""
    function = lamina.jit(lambda inputs: model(inputs, training=False), passes=passes)
    tensor = ops.convert_to_tensor(x)
    return function.trace(tensor), function(tensor).numpy()


def train(build, x, y, passes, steps=3, eager=False):
    """Losses, final weights and the train graph of ``steps`` train_on_batch calls."""
    lamina.utils.set_random_seed(7)
    model = build()
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"], run_eagerly=eager)
    model.optimizer.build(model.trainable_variables)     # so step 1 already runs as graph
    if not eager:
        model.make_train_function().function.passes = passes
    losses = [model.train_on_batch(x, y) for _ in range(steps)]
    graph = None
    if not eager:
        (graph, _), = model.train_function.function._plans.values()
    return losses, model.get_weights(), graph


def assert_training_matches(build, x, y, passes):
    """Graph with ``passes`` == unoptimized graph == eager over 3 steps; the graph."""
    eager_losses, eager_weights, _ = train(build, x, y, passes, eager=True)
    plain_losses, plain_weights, plain = train(build, x, y, [])
    losses, weights, graph = train(build, x, y, passes)
    for got in (plain_losses, losses):
        np.testing.assert_allclose(got, eager_losses, rtol=1e-4, atol=1e-5)
    for a, b, c in zip(weights, plain_weights, eager_weights):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(a, c, rtol=1e-4, atol=1e-5)
    return plain, graph


@pytest.fixture(scope="module")
def vgg():
    return load_example("vgg_digits")


@pytest.fixture(scope="module")
def digits():
    rng = np.random.default_rng(0)
    return rng.random((16, 8, 8, 1)).astype("float32"), np.arange(16) % 10


def test_vgg_predict_graph_fuses_conv_bias_relu(vgg, digits):
    lamina.utils.set_random_seed(3)
    model = vgg.build_model()
    x = digits[0]
    plain, plain_y = predict(model, x, [])
    fused, fused_y = predict(model, x, ["fuse"])
    counts = op_counts(fused)
    assert len(fused.nodes) < len(plain.nodes)
    assert fused.history == [("traced", len(plain.nodes)), ("fuse", len(fused.nodes))]
    assert counts["conv2d_bias_act"] == 4 and counts["dense_bias_act"] == 2
    assert not counts["conv2d"] and not counts["matmul"] and not counts["relu"]
    assert not counts["add"]
    acts = [n.attrs["activation"] for n in fused.nodes if n.op.name.endswith("_bias_act")]
    assert acts == ["relu"] * 5 + ["linear"]           # the last Dense keeps its softmax
    np.testing.assert_allclose(fused_y, plain_y, rtol=1e-5, atol=1e-6)
    eager_y = model(ops.convert_to_tensor(x), training=False).numpy()
    np.testing.assert_allclose(fused_y, eager_y, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(model.predict(x, batch_size=8, verbose=0), eager_y,
                               rtol=1e-5, atol=1e-6)


def test_vgg_train_graph_fuses_and_saves_relu_masks(vgg, digits):
    plain, graph = assert_training_matches(vgg.build_model, *digits, ["fuse"])
    before, after = op_counts(plain), op_counts(graph)
    assert len(graph.nodes) < len(plain.nodes)
    assert after["conv2d_bias_act"] == 4 and after["dense_bias_act"] == 2
    # the relu gradients multiply by the saved masks: no greater+cast pair per relu left
    assert before["greater"] == 5 and after["greater"] == 0
    assert after["cast"] == before["cast"] - 5
    masks = [n for n in graph.nodes if n.attrs.get("save_mask")]
    assert len(masks) == 5 and all(len(n.outputs) == 2 for n in masks)
    # random ops are never touched
    assert after["random_bernoulli"] == before["random_bernoulli"] == 1


def test_fused_nodes_keep_the_layer_they_came_from(vgg, digits):
    model = vgg.build_model()
    graph, _ = predict(model, digits[0], ["fuse"])
    fused = [n for n in graph.nodes if n.op.name == "conv2d_bias_act"]
    if not hasattr(fused[0], "layer"):
        pytest.skip("nodes do not record their layer")
    convs = [layer.name for layer in model.layers if isinstance(layer, layers.Conv2D)]
    assert [n.layer.split("/")[-1] for n in fused] == convs


def _dense_model(activation):
    return lambda: lamina.Sequential([
        lamina.Input((6,)), layers.Dense(8, activation=activation),
        layers.Dense(3, activation="softmax")])


@pytest.mark.parametrize("activation", ["sigmoid", "tanh", None])
def test_other_activations_fuse_in_training(activation):
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((12, 6)).astype("float32"), rng.integers(0, 3, 12)
    plain, graph = assert_training_matches(_dense_model(activation), x, y, ["fuse"])
    acts = [n.attrs["activation"] for n in graph.nodes if n.op.name == "dense_bias_act"]
    assert acts == [activation or "linear", "linear"]
    assert len(graph.nodes) < len(plain.nodes)


def test_values_read_outside_the_chain_are_not_fused_away():
    w = lamina.Variable(np.linspace(-1, 1, 12, dtype="float32").reshape(4, 3), name="w")
    b = lamina.Variable(np.array([0.1, -0.2, 0.3], "float32"), name="b")

    def f(x):
        product = ops.matmul(x, w)
        pre = ops.add(product, b)
        return ops.relu(pre), pre, ops.sum(product)   # pre and product are read elsewhere
    x = ops.convert_to_tensor(np.linspace(-2, 2, 8, dtype="float32").reshape(2, 4))
    compiled = lamina.jit(f, passes=["fuse"])
    graph = compiled.trace(x)
    assert op_counts(graph)["relu"] == 1 and op_counts(graph)["matmul"] == 1
    for got, want in zip(compiled(x), f(x)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_a_pre_activation_that_is_an_output_keeps_its_activation_separate():
    w = lamina.Variable(np.linspace(-1, 1, 12, dtype="float32").reshape(4, 3), name="w2")
    b = lamina.Variable(np.array([0.1, -0.2, 0.3], "float32"), name="b2")

    def f(x):
        pre = ops.add(ops.matmul(x, w), b)
        return ops.relu(pre), pre
    x = ops.convert_to_tensor(np.linspace(-2, 2, 8, dtype="float32").reshape(2, 4))
    compiled = lamina.jit(f, passes=["fuse"])
    counts = op_counts(compiled.trace(x))
    assert counts["dense_bias_act"] == 1 and counts["relu"] == 1 and not counts["add"]
    for got, want in zip(compiled(x), f(x)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_to_dot_shows_the_fused_nodes(vgg, digits):
    dot = pytest.importorskip("lamina.graph.dot")
    model = vgg.build_model()
    plain, _ = predict(model, digits[0], [])
    fused, _ = predict(model, digits[0], None)
    assert "conv2d_bias_act" not in dot.to_dot(plain)
    assert dot.to_dot(fused).count("conv2d_bias_act") >= 4
