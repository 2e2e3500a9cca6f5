"""Gradients with respect to y_pred against float64 central differences (the op harness's
check), for every crossentropy and the robust regression losses, functions and classes."""
import numpy as np
import pytest

from lamina import losses
from tests.harness import Case, check_forward, check_gradient, rand, rand_away_from

_rng = np.random.default_rng(42)
ONE_HOT = np.eye(4)[[0, 3, 1]]                               # (3, 4)
SOFT = _rng.dirichlet(np.ones(4), size=3)                    # soft labels for KL-style checks
LABELS = np.array([0, 3, 1], dtype="int32")
BINARY = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 0.0, 1.0, 1.0], [1.0, 1.0, 0.0, 0.0]])
PROBS = rand(3, 4, low=0.1, high=0.9)
LOGITS = rand(3, 4, low=-3.0, high=3.0)


def grad_case(label, fn, y_true, y_pred, **kw):
    """A harness case differentiating ``fn(y_true, y_pred)`` w.r.t. ``y_pred`` only.

    Inputs must be C-contiguous: the harness perturbs ``array.reshape(-1)``, which is a copy
    (and the numeric gradient silently 0) for a transposed array."""
    return Case("loss", fn, None, [y_true, y_pred], grad_argnums=(1,), label=label, **kw)


CASES = [
    grad_case("cce-probs", losses.categorical_crossentropy, ONE_HOT, PROBS),
    grad_case("cce-soft-labels", losses.categorical_crossentropy, SOFT, PROBS),
    grad_case("cce-logits", lambda t, p: losses.categorical_crossentropy(
        t, p, from_logits=True), ONE_HOT, LOGITS),
    grad_case("cce-smoothing", lambda t, p: losses.categorical_crossentropy(
        t, p, from_logits=True, label_smoothing=0.2), ONE_HOT, LOGITS),
    grad_case("cce-axis0", lambda t, p: losses.categorical_crossentropy(
        t, p, axis=0), np.ascontiguousarray(ONE_HOT.T), np.ascontiguousarray(PROBS.T)),
    grad_case("scce-probs", losses.sparse_categorical_crossentropy, LABELS, PROBS),
    grad_case("scce-logits", lambda t, p: losses.sparse_categorical_crossentropy(
        t, p, from_logits=True), LABELS, LOGITS),
    grad_case("scce-ignore", lambda t, p: losses.sparse_categorical_crossentropy(
        t, p, from_logits=True, ignore_class=3), LABELS, LOGITS),
    grad_case("bce-probs", losses.binary_crossentropy, BINARY, PROBS),
    grad_case("bce-logits", lambda t, p: losses.binary_crossentropy(
        t, p, from_logits=True), BINARY, LOGITS),
    grad_case("bce-smoothing", lambda t, p: losses.binary_crossentropy(
        t, p, label_smoothing=0.1), BINARY, PROBS),
    grad_case("bfce-probs", losses.binary_focal_crossentropy, BINARY, PROBS),
    grad_case("bfce-logits-balanced", lambda t, p: losses.binary_focal_crossentropy(
        t, p, apply_class_balancing=True, gamma=1.5, from_logits=True), BINARY, LOGITS),
    grad_case("cfce-probs", losses.categorical_focal_crossentropy, ONE_HOT, PROBS),
    grad_case("cfce-logits-per-class-alpha", lambda t, p: losses.categorical_focal_crossentropy(
        t, p, alpha=[0.1, 0.2, 0.3, 0.4], from_logits=True), ONE_HOT, LOGITS),
    grad_case("huber", losses.huber, np.zeros((3, 4)),
              rand_away_from(3, 4, points=(-1.0, 1.0), low=-2.0, high=2.0)),
    grad_case("huber-delta", lambda t, p: losses.huber(t, p, delta=0.3), np.zeros((3, 4)),
              rand_away_from(3, 4, points=(-0.3, 0.3), margin=0.05)),
    grad_case("log_cosh", losses.log_cosh, rand(3, 4), rand(3, 4, low=-5.0, high=5.0)),
    grad_case("mse", losses.mean_squared_error, rand(3, 4), rand(3, 4)),
    grad_case("msle", losses.mean_squared_logarithmic_error, rand(3, 4, low=0.0, high=2.0),
              rand(3, 4, low=0.1, high=2.0)),
    grad_case("cosine", losses.cosine_similarity, rand(3, 4), rand(3, 4)),
    grad_case("kld", losses.kl_divergence, SOFT, PROBS),
    grad_case("poisson", losses.poisson, rand(3, 4, low=0.0, high=3.0),
              rand(3, 4, low=0.5, high=3.0)),
    grad_case("class-cce-weighted", lambda t, p: losses.CategoricalCrossentropy(
        from_logits=True, dtype="float64")(t, p, sample_weight=[0.2, 1.0, 3.0]),
        ONE_HOT, LOGITS),
    grad_case("class-scce-sum", lambda t, p: losses.SparseCategoricalCrossentropy(
        reduction="sum", dtype="float64")(t, p), LABELS, PROBS),
    grad_case("class-bce-mean-with-weight", lambda t, p: losses.BinaryCrossentropy(
        from_logits=True, reduction="mean_with_sample_weight", dtype="float64")(
        t, p, sample_weight=[1.0, 0.5, 2.0]), BINARY, LOGITS),
    grad_case("class-huber", lambda t, p: losses.Huber(delta=0.5, dtype="float64")(t, p),
              np.zeros((3, 4)), rand_away_from(3, 4, points=(-0.5, 0.5), margin=0.05)),
    grad_case("class-log-cosh", lambda t, p: losses.LogCosh(dtype="float64")(t, p),
              rand(3, 4), rand(3, 4, low=-3.0, high=3.0)),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_gradient_matches_central_differences(c, backend):
    check_gradient(c)


def test_float32_forward_matches_float64():
    # The harness's forward check: float32 results agree with float64 ones to 1e-5 (the
    # class cases are fixed to float64 by their dtype argument).
    for c in (c for c in CASES if not c.label.startswith("class-")):
        ref = c.fn(*[np.asarray(a) for a in c.inputs])
        forward = Case(c.op, c.fn, lambda *a, r=ref.numpy(): r, c.inputs, label=c.label,
                       fwd_rtol32=2e-5, fwd_atol32=2e-6)
        check_forward(forward)
