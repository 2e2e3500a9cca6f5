"""Out-of-range labels, ids and indices raise the same error in eager and graph mode.

The range check runs in the gathers' ``forward`` (``Backend.index_bounds``), which both
modes call, so a label -1 cannot train against the last class in a compiled step and cupy's
wrapping gathers cannot hide a bad index. Keras 3 accepts these silently.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.errors import IndexRangeError
from lamina.graph import GraphExecutionError

LABEL_ERROR = (r"sparse_categorical_crossentropy: y_true holds the label {bad}, outside the "
               r"valid range \[0, 3\) for y_pred with 3 classes on axis -1 \(labels must be "
               r"in \[0, num_classes\); received labels from {low} to {high}\)")


def _classifier(run_eagerly: bool, from_logits: bool = True):
    model = lamina.Sequential([layers.Input((4,)),
                               layers.Dense(3, activation=None if from_logits else "softmax")])
    model.compile("sgd", lamina.losses.SparseCategoricalCrossentropy(from_logits=from_logits),
                  run_eagerly=run_eagerly)
    return model


def _fit_error(model, y):
    """Fit once on good labels (the first batch builds the optimizer eagerly; later ones run
    the compiled step), then on ``y``: the error, with the weights left as they were."""
    x = np.random.default_rng(0).normal(size=(len(y), 4)).astype("float32")
    model.fit(x, np.arange(len(y)) % 3, batch_size=len(y), epochs=1, verbose=0)
    before = [w.copy() for w in model.get_weights()]
    with pytest.raises((IndexRangeError, GraphExecutionError)) as info:
        model.fit(x, np.asarray(y), batch_size=len(y), epochs=1, verbose=0)
    for w, b in zip(model.get_weights(), before):     # nothing was trained on bad labels
        np.testing.assert_array_equal(w, b)
    return info.value


@pytest.mark.parametrize("run_eagerly", [False, True], ids=["graph", "eager"])
@pytest.mark.parametrize("from_logits", [True, False], ids=["logits", "probabilities"])
@pytest.mark.parametrize("label,low,high", [(-1, -1, 2), (3, 0, 3)])
def test_fit_refuses_out_of_range_sparse_labels(backend, run_eagerly, from_logits, label,
                                                 low, high):
    model = _classifier(run_eagerly, from_logits)
    error = _fit_error(model, [0, 1, 2, label])
    assert (isinstance(error, GraphExecutionError)) == (not run_eagerly)
    message = LABEL_ERROR.format(bad=label, low=low, high=high)
    assert isinstance(error, ValueError) or isinstance(error.original, IndexRangeError)
    assert re.search(message, str(error)), str(error)
    if not run_eagerly:
        assert error.op in ("take_along_axis", "softmax_crossentropy")
        assert "outside any layer (loss" in str(error)


def test_graph_error_comes_from_the_fused_loss_op(backend):
    # from_logits=True is simplified to softmax_crossentropy (simplify_losses.py): it checks.
    error = _fit_error(_classifier(run_eagerly=False), [0, -1, 1, 2])
    assert error.op == "softmax_crossentropy"
    assert isinstance(error.original, IndexRangeError)


def test_loss_function_refuses_labels_eagerly(backend):
    y_pred = ops.convert_to_tensor(np.full((2, 3), 1 / 3, dtype="float32"))
    with pytest.raises(IndexRangeError, match=LABEL_ERROR.format(bad=-1, low=-1, high=0)
                       + r"; to skip a padding label, pass ignore_class"):
        lamina.losses.sparse_categorical_crossentropy(np.array([0, -1]), y_pred)


def test_ignore_class_labels_are_not_refused(backend):
    y_pred = ops.convert_to_tensor(np.full((2, 3), 1 / 3, dtype="float32"))
    loss = lamina.losses.sparse_categorical_crossentropy(np.array([0, -1]), y_pred,
                                                         ignore_class=-1)
    np.testing.assert_allclose(ops.convert_to_numpy(loss), [np.log(3), 0.0], rtol=1e-6)


def test_jit_refuses_out_of_range_labels(backend):
    loss = lamina.jit(lambda y, p: ops.sum(lamina.losses.sparse_categorical_crossentropy(
        y, p, from_logits=True)))
    logits = ops.convert_to_tensor(np.zeros((2, 3), dtype="float32"))
    ok = loss(ops.convert_to_tensor(np.array([0, 2])), logits)
    np.testing.assert_allclose(ops.convert_to_numpy(ok), 2 * np.log(3), rtol=1e-6)
    with pytest.raises(GraphExecutionError, match=LABEL_ERROR.format(bad=5, low=0, high=5)):
        loss(ops.convert_to_tensor(np.array([0, 5])), logits)


EMBEDDING_ERROR = (r"embedding: input ids must be in \[0, 5\) \(argument 'input_dim' is 5\); "
                   r"received id {bad} \(ids from {low} to {high}\)")


@pytest.mark.parametrize("run_eagerly", [False, True], ids=["graph", "eager"])
@pytest.mark.parametrize("ids,bad,low,high", [([[0, 4], [-1, 2]], -1, -1, 4),
                                              ([[0, 5], [1, 2]], 5, 0, 5)])
def test_embedding_refuses_out_of_range_ids(backend, run_eagerly, ids, bad, low, high):
    model = lamina.Sequential([layers.Input((2,), dtype="int32"),
                               layers.Embedding(5, 2, name="embedding"), layers.Flatten(),
                               layers.Dense(1)])
    model.compile("sgd", "mse", run_eagerly=run_eagerly)
    model.fit(np.array([[0, 1], [2, 3]]), np.zeros((2, 1), "float32"), verbose=0)  # builds
    expected = GraphExecutionError if not run_eagerly else IndexRangeError
    with pytest.raises(expected, match=EMBEDDING_ERROR.format(bad=bad, low=low, high=high)):
        model.fit(np.array(ids), np.zeros((2, 1), "float32"), epochs=1, verbose=0)
    with pytest.raises(expected, match=EMBEDDING_ERROR.format(bad=bad, low=low, high=high)):
        model.predict(np.array(ids), verbose=0)


def test_embedding_graph_error_names_the_layer(backend):
    model = lamina.Sequential([layers.Input((2,), dtype="int32"),
                               layers.Embedding(5, 2, name="embedding")])
    with pytest.raises(GraphExecutionError, match=r"op 'take' in layer '[^']*embedding'"):
        model.predict(np.array([[0, 7]]), verbose=0)


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "jit"])
def test_take_refuses_out_of_range_indices(backend, compiled):
    x = ops.convert_to_tensor(np.arange(12, dtype="float32").reshape(3, 4))
    take = lamina.jit(lambda x, i: ops.take(x, i, axis=1)) if compiled else \
        (lambda x, i: ops.take(x, i, axis=1))
    np.testing.assert_array_equal(
        ops.convert_to_numpy(take(x, ops.convert_to_tensor(np.array([-4, 3])))),
        np.arange(12).reshape(3, 4)[:, [0, 3]])
    expected = GraphExecutionError if compiled else IndexRangeError
    for indices, bad, low, high in (([0, 4], 4, 0, 4), ([-5, 1], -5, -5, 1)):
        with pytest.raises(expected, match=rf"take: index {bad} is out of range for axis 1 of "
                           rf"size 4 \(valid: \[-4, 4\)\); argument 'indices' holds values "
                           rf"from {low} to {high}"):
            take(x, ops.convert_to_tensor(np.array(indices)))


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "jit"])
def test_take_along_axis_refuses_out_of_range_indices(backend, compiled):
    x = ops.convert_to_tensor(np.arange(6, dtype="float32").reshape(2, 3))
    take = lamina.jit(lambda x, i: ops.take_along_axis(x, i, axis=1)) if compiled else \
        (lambda x, i: ops.take_along_axis(x, i, axis=1))
    np.testing.assert_array_equal(
        ops.convert_to_numpy(take(x, ops.convert_to_tensor(np.array([[-1], [0]])))),
        [[2.0], [3.0]])
    expected = GraphExecutionError if compiled else IndexRangeError
    with pytest.raises(expected, match=r"take_along_axis: index 3 is out of range for axis 1 "
                       r"of size 3 \(valid: \[-3, 3\)\); argument 'indices' holds values "
                       r"from 0 to 3"):
        take(x, ops.convert_to_tensor(np.array([[3], [0]])))


def test_index_bounds_kernel(backend):
    indices = backend.asarray(np.array([[3, -2], [7, 0]], dtype="int32"))
    assert backend.index_bounds(indices) == (-2, 7)


@pytest.mark.parametrize("compiled", [False, True])
def test_sparse_top_k_accuracy_refuses_a_label_outside_the_classes(compiled):
    """-1 would otherwise read the last class's score (numpy's negative index)."""
    metric = lambda y, p: lamina.metrics.sparse_top_k_categorical_accuracy(y, p, k=1)  # noqa: E731
    if compiled:
        metric = lamina.jit(metric)
    y_pred = np.array([[0.1, 0.2, 0.7], [0.5, 0.3, 0.2]], "float32")
    np.testing.assert_array_equal(metric(np.array([2, 1]), y_pred).numpy(), [1.0, 0.0])
    with pytest.raises((IndexRangeError, GraphExecutionError),
                       match=r"sparse_top_k_categorical_accuracy: y_true holds the label -1, "
                             r"outside the valid range \[0, 3\) for y_pred with 3 classes "
                             r"\(received labels from -1 to 1\)"):
        metric(np.array([-1, 1]), y_pred)
