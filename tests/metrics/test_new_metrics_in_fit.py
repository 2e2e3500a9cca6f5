"""Graph mode equals eager for the metrics added for Keras 3 parity: each one, passed to
``compile(metrics=[...])``, reports the same values per epoch under ``fit`` (weighted, with
a partial last batch) and ``evaluate`` in a compiled step as with ``run_eagerly=True``; and
the compiled step really is a graph (no fallback to eager)."""
import warnings

import numpy as np
import pytest

import lamina
from lamina import layers, metrics

N, FEATURES = 26, 4           # batches of 8: the last one has 2 rows

# kind -> (units, activation, loss, labels)
_rng = np.random.default_rng(5)
_CLASSES = _rng.integers(0, 3, N)
KINDS = {
    "binary": (3, "sigmoid", "binary_crossentropy",
               _rng.integers(0, 2, (N, 3)).astype("float32")),
    "regression": (3, None, "mse", _rng.normal(0, 1, (N, 3)).astype("float32")),
    "count": (3, "softplus", "mse", _rng.integers(0, 4, (N, 3)).astype("float32")),
    "onehot": (3, "softmax", "categorical_crossentropy", np.eye(3, dtype="float32")[_CLASSES]),
    "sparse": (3, "softmax", "sparse_categorical_crossentropy", _CLASSES),
    "score": (1, "sigmoid", "binary_crossentropy",
              _rng.integers(0, 2, (N, 1)).astype("float32")),
}

METRICS = [
    (lambda: metrics.BinaryCrossentropy(label_smoothing=0.1), "binary"),
    (lambda: metrics.CategoricalCrossentropy(), "onehot"),
    (lambda: metrics.SparseCategoricalCrossentropy(ignore_class=1), "sparse"),
    (lambda: metrics.KLDivergence(), "onehot"),
    (lambda: metrics.Poisson(), "count"),
    (lambda: metrics.Hinge(), "binary"),
    (lambda: metrics.SquaredHinge(), "binary"),
    (lambda: metrics.CategoricalHinge(), "onehot"),
    (lambda: metrics.CosineSimilarity(), "regression"),
    (lambda: metrics.LogCoshError(), "regression"),
    (lambda: metrics.PearsonCorrelation(), "regression"),
    (lambda: metrics.ConcordanceCorrelation(), "regression"),
    (lambda: metrics.R2Score(), "regression"),
    (lambda: metrics.R2Score(class_aggregation=None, num_regressors=1), "regression"),
    (lambda: metrics.F1Score(), "binary"),
    (lambda: metrics.FBetaScore(beta=2.0, average="weighted", threshold=0.5), "binary"),
    (lambda: metrics.IoU(3, [0, 2], sparse_y_pred=False), "sparse"),
    (lambda: metrics.MeanIoU(3, sparse_y_pred=False), "sparse"),
    (lambda: metrics.BinaryIoU(threshold=0.4), "score"),
    (lambda: metrics.OneHotIoU(3, [1]), "onehot"),
    (lambda: metrics.OneHotMeanIoU(3), "onehot"),
    (lambda: metrics.PrecisionAtRecall(0.5), "score"),
    (lambda: metrics.RecallAtPrecision(0.5, num_thresholds=20), "score"),
    (lambda: metrics.SensitivityAtSpecificity(0.5), "score"),
    (lambda: metrics.SpecificityAtSensitivity(0.5, class_id=0), "score"),
]


def _run(make_metric, kind, eager, weights=None):
    units, activation, loss, y = KINDS[kind]
    x = np.random.default_rng(1).normal(0, 1, (N, FEATURES)).astype("float32")
    sample_weight = np.random.default_rng(2).integers(1, 3, N).astype("float32")
    lamina.backend.clear_session(free_memory=False)
    model = lamina.Sequential([lamina.Input((FEATURES,)),
                               layers.Dense(units, activation=activation)])
    if weights is not None:
        model.set_weights(weights)
    metric = make_metric()
    model.compile(lamina.optimizers.SGD(0.05), loss, metrics=[metric], run_eagerly=eager)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        history = model.fit(x, y, sample_weight=sample_weight, epochs=2, batch_size=8,
                            shuffle=False, verbose=0)
        evaluated = model.evaluate(x, y, batch_size=8, verbose=0, return_dict=True)
    fallbacks = [str(w.message) for w in caught if "could not be compiled" in str(w.message)]
    assert not fallbacks, fallbacks
    return model, history.history[metric.name], evaluated[metric.name]


@pytest.mark.parametrize("make_metric,kind", METRICS,
                         ids=[f"{i}-{make().__class__.__name__}" for i, (make, _) in
                              enumerate(METRICS)])
def test_graph_fit_and_evaluate_equal_eager(make_metric, kind):
    units, activation = KINDS[kind][:2]
    initial = lamina.Sequential([lamina.Input((FEATURES,)),
                                 layers.Dense(units, activation=activation)]).get_weights()
    _, eager_history, eager_eval = _run(make_metric, kind, eager=True, weights=initial)
    _, graph_history, graph_eval = _run(make_metric, kind, eager=False, weights=initial)
    assert np.all(np.isfinite(np.asarray(eager_history, dtype="float64")))
    np.testing.assert_allclose(np.asarray(graph_history, dtype="float64"),
                               np.asarray(eager_history, dtype="float64"), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(graph_eval, dtype="float64"),
                               np.asarray(eager_eval, dtype="float64"), rtol=1e-5, atol=1e-6)
