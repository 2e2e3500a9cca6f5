"""The simplify pass's loss rules: crossentropies traced from lamina.losses become the fused
ops, in forward-only graphs and in training graphs (where their gradients are fused too),
with eager mode's losses and gradients."""
import numpy as np
import pytest

import lamina
from lamina import losses, ops
from tests.graph.passes.jit_compare import (assert_shrinks, assert_training_keeps_numbers,
                                            compare, loss_and_gradients, op_counts)

R = np.random.default_rng(1)
X = R.standard_normal((6, 4)).astype("float32")
LABELS = np.array([0, 2, 1, 2, 0, 1])
ONE_HOT = np.eye(3, dtype="float32")[LABELS]
BITS = (R.standard_normal((6, 2)) > 0).astype("float32")

# (rule, loss, labels, activation applied to the logits, number of classes)
LOSSES = [
    ("categorical_crossentropy", losses.CategoricalCrossentropy(), ONE_HOT, ops.softmax, 3),
    ("categorical_crossentropy", losses.CategoricalCrossentropy(label_smoothing=0.1),
     ONE_HOT, ops.softmax, 3),
    ("categorical_crossentropy_logits", losses.CategoricalCrossentropy(from_logits=True),
     ONE_HOT, None, 3),
    ("sparse_categorical_crossentropy", losses.SparseCategoricalCrossentropy(), LABELS,
     ops.softmax, 3),
    ("sparse_categorical_crossentropy_logits",
     losses.SparseCategoricalCrossentropy(from_logits=True), LABELS, None, 3),
    ("binary_crossentropy", losses.BinaryCrossentropy(), BITS, ops.sigmoid, 2),
    ("binary_crossentropy", losses.BinaryCrossentropy(label_smoothing=0.2), BITS,
     ops.sigmoid, 2),
]
IDS = [f"{rule}-{i}" for i, (rule, *_) in enumerate(LOSSES)]


def fused_name(rule):
    return "sigmoid_crossentropy" if rule.startswith("binary") else "softmax_crossentropy"


def model_loss(loss, activation, classes):
    w = lamina.Variable(R.standard_normal((4, classes)).astype("float32") * 2, name="w")

    def fn(x, y):
        logits = ops.matmul(x, w)
        return loss(y, activation(logits) if activation else logits)
    return fn, w


@pytest.mark.parametrize("rule,loss,labels,activation,classes", LOSSES, ids=IDS)
def test_forward_graph_uses_the_fused_op(rule, loss, labels, activation, classes):
    fn, _ = model_loss(loss, activation, classes)
    args = [ops.convert_to_tensor(X), ops.convert_to_tensor(labels)]
    raw, graph = assert_shrinks(fn, args, ["simplify"], by=2, rtol=1e-6, atol=1e-6)
    assert graph.simplified[rule] == 1
    assert op_counts(graph)[fused_name(rule)] == 1


@pytest.mark.parametrize("rule,loss,labels,activation,classes", LOSSES, ids=IDS)
def test_training_graph_fuses_the_gradient_too(rule, loss, labels, activation, classes):
    fn, w = model_loss(loss, activation, classes)
    step = loss_and_gradients(fn, w)
    args = [ops.convert_to_tensor(X), ops.convert_to_tensor(labels)]
    raw, graph = assert_shrinks(step, args, ["simplify"], by=8, rtol=1e-5, atol=1e-6)
    counts = op_counts(graph)
    assert counts[fused_name(rule)] == 1 and counts[fused_name(rule) + "_grad"] == 1
    for name in ("clip", "log"):
        assert counts[name] == 0, dict(counts)


@pytest.mark.parametrize("loss", ["sparse_categorical_crossentropy", "categorical_crossentropy",
                                  "binary_crossentropy"])
def test_mlp_training_keeps_its_numbers_with_all_passes(loss):
    activation = "sigmoid" if loss == "binary_crossentropy" else "softmax"
    raw, graph = assert_training_keeps_numbers(None, loss=loss, activation=activation)
    assert len(graph.nodes) < len(raw.nodes) - 20
    assert op_counts(graph)[fused_name(loss) + "_grad"] == 1


def test_saturated_predictions_give_eager_modes_clipped_loss_and_gradient():
    x = np.array([[60.0, 0.0, -60.0], [0.0, 50.0, 0.0]], "float32")
    y = np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0]], "float32")
    logits = lamina.Variable(x, name="logits")
    step = loss_and_gradients(lambda y: losses.categorical_crossentropy(
        y, ops.softmax(logits)), logits)
    _, graph = compare(step, [ops.convert_to_tensor(y)], ["simplify"], rtol=1e-6, atol=1e-7)
    assert op_counts(graph)["softmax_crossentropy"] == 1


def test_the_softmax_stays_when_a_metric_reads_it():
    w = lamina.Variable(R.standard_normal((4, 3)).astype("float32"), name="w")

    def fn(x, y):
        p = ops.softmax(ops.matmul(x, w))
        return losses.sparse_categorical_crossentropy(y, p), ops.argmax(p, axis=-1)
    _, graph = compare(loss_and_gradients(lambda x, y: ops.sum(fn(x, y)[0]), w),
                       [ops.convert_to_tensor(X), ops.convert_to_tensor(LABELS)], ["simplify"],
                       rtol=1e-5, atol=1e-6)
    assert op_counts(graph)["softmax"] == 0
    _, graph = compare(fn, [ops.convert_to_tensor(X), ops.convert_to_tensor(LABELS)],
                       ["simplify"], rtol=1e-6, atol=1e-6)
    assert op_counts(graph)["softmax"] == 1 and op_counts(graph)["softmax_crossentropy"] == 1


def test_no_fusion_when_an_intermediate_is_read_elsewhere():
    def fn(x, y):
        p = ops.softmax(x)
        q = p / ops.sum(p, axis=-1, keepdims=True)
        clipped = ops.clip(q, 1e-7, 1 - 1e-7)
        loss = ops.negative(ops.sum(y * ops.log(clipped), axis=-1))
        return loss, clipped
    _, graph = compare(fn, [ops.convert_to_tensor(X[:, :3]), ops.convert_to_tensor(ONE_HOT)],
                       ["simplify"])
    assert not graph.simplified and op_counts(graph)["softmax_crossentropy"] == 0


def test_log_of_softmax_in_a_training_graph_fuses_the_gradient_too():
    w = lamina.Variable(R.standard_normal((4, 3)).astype("float32"), name="w_log_softmax")
    weights = ops.convert_to_tensor(R.uniform(0.5, 1.5, (6, 3)).astype("float32"))
    step = loss_and_gradients(lambda x: ops.sum(ops.log(ops.softmax(ops.matmul(x, w)))
                                                * weights), w)
    raw, graph = assert_shrinks(step, [ops.convert_to_tensor(X)], ["simplify"], by=2,
                                rtol=1e-5, atol=1e-6)
    assert graph.simplified["log_softmax"] == 1
    assert op_counts(graph)["softmax"] == op_counts(graph)["log"] == 0


def test_fused_binary_crossentropy_has_eager_bits_where_one_minus_p_cancels():
    """At logits of 6..12, float32 ``1 - sigmoid(x)`` keeps only a few bits; eager mode
    (and Keras on probabilities) computes the loss from it, so the fused op must too: the
    exact logits formula differed by 0.17% (fuzzer seed 3822)."""
    logits = lamina.Variable(np.array([[6.0, 8.5], [10.25, 12.0]], "float32"), name="x")
    z = np.array([[0.0, 0.0], [0.0, 1.0]], "float32")

    def fn(z):
        return losses.binary_crossentropy(z, ops.sigmoid(logits))
    eager = fn(ops.convert_to_tensor(z)).numpy()
    compiled = lamina.jit(fn, passes=["simplify"])
    np.testing.assert_array_equal(compiled(z).numpy(), eager)
    assert op_counts(compiled.trace(z))["sigmoid_crossentropy"] == 1
