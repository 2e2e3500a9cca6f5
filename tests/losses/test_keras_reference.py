"""Dice, Tversky, CategoricalGeneralizedCrossEntropy, Circle and CTC against values computed
by Keras 3 (tests/losses/keras_reference.json, written by
tests/fixtures/make_metric_references.py): every reduction, with and without sample
weights, the gradient with respect to y_pred, and the serialized config."""
import json
import os

import numpy as np
import pytest

import lamina
from lamina import losses, ops

with open(os.path.join(os.path.dirname(__file__), "keras_reference.json")) as f:
    REFERENCE = json.load(f)

CASES = REFERENCE["losses"]
REDUCTIONS = ["sum_over_batch_size", "sum", "mean", "none", None]


def case_id(case):
    args = ",".join(f"{k}={v}" for k, v in case["kwargs"].items())
    return f"{case['class_name']}({args})"


def close(actual, expected):
    np.testing.assert_allclose(np.asarray(actual, dtype="float64"), expected,
                               rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("reduction", REDUCTIONS, ids=str)
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_each_reduction_matches_keras(case, reduction, weighted):
    expected = case["results"][f"{reduction}{'+weight' if weighted else ''}"]
    loss = getattr(losses, case["class_name"])(reduction=reduction, **case["kwargs"])
    weight = np.asarray(case["sample_weight"]) if weighted else None
    close(loss(np.asarray(case["y_true"]), np.asarray(case["y_pred"], "float32"),
               sample_weight=weight).numpy(), expected)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_gradient_matches_keras(case):
    loss = getattr(losses, case["class_name"])(**case["kwargs"])
    y_pred = ops.convert_to_tensor(np.asarray(case["y_pred"], "float32"))
    with lamina.GradientTape() as tape:
        tape.watch(y_pred)
        value = loss(np.asarray(case["y_true"]), y_pred)
    close(tape.gradient(value, y_pred).numpy(), case["grad_y_pred"])


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_config_is_what_keras_writes(case):
    loss = getattr(losses, case["class_name"])(**case["kwargs"])
    config = json.loads(json.dumps(losses.serialize(loss)))
    assert config == case["config"]
    rebuilt = losses.deserialize(config)
    assert type(rebuilt) is type(loss) and rebuilt.get_config() == loss.get_config()


def test_circle_against_reference_embeddings():
    ref = REFERENCE["circle_with_references"]
    value = losses.circle(np.asarray(ref["y_true"]), np.asarray(ref["y_pred"], "float32"),
                          ref_labels=np.asarray(ref["ref_labels"]),
                          ref_embeddings=np.asarray(ref["ref_embeddings"], "float32"))
    close(value.numpy(), ref["result"])


def test_ctc_needs_rank_2_labels_and_rank_3_logits():
    with pytest.raises(lamina.errors.ShapeError, match=r"ctc: y_true must be integer "
                       r"targets of shape \(batch_size, max_length\); received y_true.shape"):
        losses.ctc(np.ones((2, 3, 1)), np.zeros((2, 4, 5), "float32"))
    with pytest.raises(lamina.errors.ShapeError, match=r"ctc: y_pred must be logits of shape "
                       r"\(batch_size, time_steps, num_classes\)"):
        losses.ctc(np.ones((2, 3)), np.zeros((2, 5), "float32"))


@pytest.mark.parametrize("q", [0, 1, 1.5, True])
def test_generalized_crossentropy_needs_q_in_the_open_unit_interval(q):
    with pytest.raises(ValueError, match=r"CategoricalGeneralizedCrossEntropy: argument 'q' "
                       r"must be a number in the open interval \(0, 1\); received q="):
        losses.CategoricalGeneralizedCrossEntropy(q=q)


def test_losses_deserialize_takes_name_like_keras():
    assert losses.deserialize(name="dice") is losses.dice


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_graph_mode_equals_eager_with_gradients(case):
    loss = getattr(losses, case["class_name"])(**case["kwargs"])
    y_true = ops.convert_to_tensor(np.asarray(case["y_true"], "float32"))
    y_pred = ops.convert_to_tensor(np.asarray(case["y_pred"], "float32"))
    weight = ops.convert_to_tensor(np.asarray(case["sample_weight"], "float32"))

    def value_and_grad(t, p, w):
        with lamina.GradientTape() as tape:
            tape.watch(p)
            value = loss(t, p, sample_weight=w)
        return value, tape.gradient(value, p)

    eager = value_and_grad(y_true, y_pred, weight)
    graph = lamina.jit(value_and_grad)(y_true, y_pred, weight)
    for g, e in zip(graph, eager):
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-5, atol=1e-6)
    close(eager[0].numpy(), case["results"]["sum_over_batch_size+weight"])
