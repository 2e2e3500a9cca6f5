"""The fold_batchnorm pass: inference batch norm folded into the preceding conv2d/dense."""
import numpy as np
import pytest

import lamina
from lamina import layers, ops
from tests.graph.passes.test_fuse import assert_training_matches, op_counts, predict

# Nodes allowed on batch-sized tensors once BN is folded and the chains fused: no
# multiply/add over the activations is left.
_DATA_OPS = {"conv2d_bias_act", "dense_bias_act", "max_pool2d", "reshape", "softmax"}


def vgg_bn():
    """A VGG-style network with BatchNormalization after convolutions and a dense layer
    (with and without a bias before the norm)."""
    return lamina.Sequential([
        lamina.Input((8, 8, 1)),
        layers.Conv2D(8, 3, padding="same"), layers.BatchNormalization(),
        layers.Activation("relu"),
        layers.Conv2D(8, 3, padding="same", use_bias=False), layers.BatchNormalization(),
        layers.ReLU(), layers.MaxPooling2D(2),
        layers.Conv2D(16, 3, padding="same", use_bias=False),
        layers.BatchNormalization(scale=False), layers.ReLU(), layers.MaxPooling2D(2),
        layers.Flatten(), layers.Dense(16), layers.BatchNormalization(center=False),
        layers.Activation("relu"), layers.Dense(10, activation="softmax")])


def _randomize_statistics(model, seed=0):
    """Moving statistics, gammas and betas far from their initial 0/1."""
    rng = np.random.default_rng(seed)
    for layer in model.layers:
        if isinstance(layer, layers.BatchNormalization):
            weights = [rng.uniform(0.5, 1.5, w.shape).astype("float32") if "variance" in
                       w.path or "gamma" in w.path else
                       rng.uniform(-0.5, 0.5, w.shape).astype("float32")
                       for w in layer.weights]
            layer.set_weights(weights)


@pytest.fixture
def images():
    rng = np.random.default_rng(0)
    return rng.random((16, 8, 8, 1)).astype("float32"), np.arange(16) % 10


def _batch_sized(graph, batch):
    return [n for n in graph.nodes
            if len(n.outputs[0].shape) > 1 and n.outputs[0].shape[0] == batch]


def test_predict_graph_has_no_batch_norm_left(images):
    lamina.utils.set_random_seed(3)
    model = vgg_bn()
    _randomize_statistics(model)
    x = images[0]
    plain, plain_y = predict(model, x, [])
    folded, folded_y = predict(model, x, ["fold_batchnorm"])
    optimized, optimized_y = predict(model, x, None)
    assert len(folded.nodes) < len(plain.nodes)
    assert len(optimized.nodes) < len(folded.nodes)
    # folded: every BN's multiply and add over the activations are gone
    plain_data = [n.op.name for n in _batch_sized(plain, 16)]
    folded_data = [n.op.name for n in _batch_sized(folded, 16)]
    assert plain_data.count("multiply") == 4 and "multiply" not in folded_data
    assert plain_data.count("add") == 4 + 2 + 1 and folded_data.count("add") == 4 + 1
    # optimized: only fused conv/dense nodes, pooling and the head touch the batch
    assert {n.op.name for n in _batch_sized(optimized, 16)} <= _DATA_OPS
    assert op_counts(optimized)["conv2d_bias_act"] == 3
    eager_y = model(ops.convert_to_tensor(x), training=False).numpy()
    for got in (plain_y, folded_y, optimized_y):
        np.testing.assert_allclose(got, eager_y, rtol=1e-5, atol=1e-6)


def test_folded_graph_follows_the_variables_without_retracing(images):
    model = vgg_bn()
    x = images[0]
    function = lamina.jit(lambda inputs: model(inputs, training=False))
    tensor = ops.convert_to_tensor(x)
    function(tensor)
    _randomize_statistics(model, seed=5)
    model.layers[0].kernel.assign(model.layers[0].kernel.numpy() * 1.5)
    eager_y = model(tensor, training=False).numpy()
    np.testing.assert_allclose(function(tensor).numpy(), eager_y, rtol=1e-5, atol=1e-6)
    assert function.trace_count == 1


def test_training_graph_is_not_folded_and_keeps_the_numbers(images):
    x, y = images
    plain, graph = assert_training_matches(vgg_bn, x, y, ["fold_batchnorm"])
    assert graph.history[-1] == ("fold_batchnorm", len(plain.nodes))
    assert len(graph.nodes) == len(plain.nodes)


def test_a_constant_affine_in_a_training_step_is_not_folded():
    """Rescaling after a Dense is a foldable affine; in a training step folding it would
    round the forward pass differently from eager, and RMSprop turns the rounding-noise
    gradient of the bias before BatchNormalization into full steps (fuzzer seed 1106)."""
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((16, 5)).astype("float32"), rng.integers(0, 4, 16)

    def build():
        return lamina.Sequential([
            lamina.Input((5,)), layers.Dense(8, activation="sigmoid"), layers.Dense(8),
            layers.Rescaling(2.0, offset=-1.0), layers.BatchNormalization(center=False),
            layers.Dense(4)])
    weights = []
    for eager in (True, False):
        lamina.utils.set_random_seed(4)
        model = build()
        model.compile(lamina.optimizers.RMSprop(0.01), run_eagerly=eager,
                      loss=lamina.losses.SparseCategoricalCrossentropy(from_logits=True))
        for _ in range(5):
            model.train_on_batch(x, y)
        weights.append(model.get_weights())
        if not eager:
            history = dict(model.graph(x, y, step="train").history)
            assert history["fold_batchnorm"] == history["cse"]     # nothing folded
    for a, b in zip(*weights):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_test_step_is_folded_and_evaluates_like_eager(images):
    x, y = images
    results = []
    for eager in (True, False):
        lamina.utils.set_random_seed(3)
        model = vgg_bn()
        _randomize_statistics(model)
        model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                      metrics=["accuracy"], run_eagerly=eager)
        results.append(model.evaluate(x, y, batch_size=8, verbose=0))
        if not eager:
            (graph, _), = model.test_function.function._plans.values()
            assert graph.updates            # the metrics' accumulators: still folded
            # (the loss and metrics work on (8, 10) and (8, 1) tensors)
            assert not [n for n in _batch_sized(graph, 8) if n.outputs[0].shape[-1] in
                        (8, 16) and n.op.name not in _DATA_OPS]
    np.testing.assert_allclose(results[1], results[0], rtol=1e-5, atol=1e-6)


def test_batch_norm_after_an_activation_is_left_alone(images):
    model = lamina.Sequential([
        lamina.Input((8, 8, 1)), layers.Conv2D(4, 3, activation="relu"),
        layers.BatchNormalization(), layers.Flatten(), layers.Dense(3)])
    _randomize_statistics(model)
    plain, plain_y = predict(model, images[0], [])
    graph, y = predict(model, images[0], ["fold_batchnorm"])
    assert len(graph.nodes) == len(plain.nodes)
    np.testing.assert_array_equal(y, plain_y)


def test_subtracted_shift_and_sequence_dense_fold():
    w = lamina.Variable(np.linspace(-1, 1, 12, dtype="float32").reshape(4, 3), name="k")
    scale = lamina.Variable(np.array([0.5, 2.0, -1.0], "float32"), name="scale")
    shift = lamina.Variable(np.array([[0.1, 0.2, 0.3]], "float32"), name="shift")

    def f(x):
        return ops.relu(ops.subtract(ops.multiply(ops.matmul(x, w), scale), shift))
    x = ops.convert_to_tensor(np.linspace(-2, 2, 24, dtype="float32").reshape(2, 3, 4))
    compiled = lamina.jit(f, passes=["fold_batchnorm"])
    graph = compiled.trace(x)
    assert graph.history == [("traced", 4), ("fold_batchnorm", 6)]
    assert [n.op.name for n in _batch_sized(graph, 2)] == ["matmul", "add", "relu"]
    np.testing.assert_allclose(compiled(x).numpy(), f(x).numpy(), rtol=1e-5, atol=1e-6)


def test_a_data_dependent_scale_is_not_folded():
    w = lamina.Variable(np.linspace(-1, 1, 12, dtype="float32").reshape(4, 3), name="k2")

    def f(x, s):
        return ops.add(ops.multiply(ops.matmul(x, w), s), 1.0)
    x = ops.convert_to_tensor(np.ones((2, 4), "float32"))
    s = ops.convert_to_tensor(np.array([1.0, 2.0, 3.0], "float32"))
    compiled = lamina.jit(f, passes=["fold_batchnorm"])
    assert compiled.trace(x, s).history[-1] == ("fold_batchnorm", 3)
    np.testing.assert_allclose(compiled(x, s).numpy(), f(x, s).numpy(), rtol=1e-6)


def test_constant_weights_fold_at_compile_time():
    w = ops.convert_to_tensor(np.linspace(-1, 1, 12, dtype="float32").reshape(4, 3))
    s = ops.convert_to_tensor(np.array([[0.5, 2.0, -1.0]], "float32"))
    t = ops.convert_to_tensor(np.array([0.1, 0.2, 0.3], "float32"))

    def f(x):
        return ops.relu(ops.add(ops.multiply(ops.matmul(x, w), s), t))
    x = ops.convert_to_tensor(np.linspace(-2, 2, 8, dtype="float32").reshape(2, 4))
    compiled = lamina.jit(f, passes=["fold_batchnorm", "fuse"])
    assert [n.op.name for n in compiled.trace(x).nodes] == ["dense_bias_act"]
    np.testing.assert_allclose(compiled(x).numpy(), f(x).numpy(), rtol=1e-6)
