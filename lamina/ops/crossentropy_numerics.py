"""The numerically careful pieces of the crossentropies (Keras 3's formulas), shared by
``lamina.ops``'s crossentropy ops and the loss functions of ``lamina.losses`` (which
re-exports them as ``lamina.losses.numerics``).

* Probabilities are clipped to ``[epsilon, 1 - epsilon]`` (``epsilon() == 1e-7``) before a
  log, so a confident wrong answer costs about 16.1, never ``inf``.
* Logits never go through ``exp`` unguarded: ``log_softmax`` for categorical losses and
  ``max(x, 0) - x * z + log1p(exp(-|x|))`` for sigmoid crossentropy, so logits of +-1e4 give
  finite losses and exact gradients (``sigmoid(x) - z``).
"""
from __future__ import annotations

from ..settings import epsilon
from .math import abs, add, divide, exp, log, log1p, multiply, negative, subtract
from .where_clip import clip
from .reduction import sum as reduce_sum
from .softmax import log_softmax

__all__: list = []          # helpers, not public ops


def clip_probabilities(p):
    """``p`` limited to ``[epsilon, 1 - epsilon]``."""
    eps = epsilon()
    return clip(p, eps, 1.0 - eps)


def stable_softplus(x):
    """``log(1 + exp(x))`` without overflow, with the right gradient everywhere.

    ``max(x, 0)`` is written ``(x + |x|) / 2`` so that, with ``d|x|/dx = 0`` at 0, the
    gradient at 0 is ``1/2 = sigmoid(0)`` (a relu-based form would give 0 or 1 there, and
    logits of exactly 0 are common: a zero-initialized output layer produces them).
    """
    magnitude = abs(x)
    return add(multiply(add(x, magnitude), 0.5),
                   log1p(exp(negative(magnitude))))


def sigmoid_crossentropy_with_logits(labels, logits):
    """Elementwise ``-z log(sigmoid(x)) - (1 - z) log(1 - sigmoid(x))`` from logits ``x``."""
    return subtract(stable_softplus(logits), multiply(logits, labels))


def binary_crossentropy_from_probabilities(labels, probabilities):
    """Elementwise ``-z log(p) - (1 - z) log(1 - p)`` with ``p`` clipped."""
    p = clip_probabilities(probabilities)
    return negative(add(multiply(labels, log(p)),
                                multiply(subtract(1.0, labels),
                                             log(subtract(1.0, p)))))


def normalized_probabilities(y_pred, axis: int):
    """``y_pred`` rescaled to sum to 1 along ``axis``, then clipped (Keras does both)."""
    return clip_probabilities(divide(y_pred, reduce_sum(y_pred, axis=axis, keepdims=True)))


def log_probabilities(y_pred, from_logits: bool, axis: int):
    """Log-probabilities along ``axis``: ``log_softmax`` of logits, or the log of the
    normalized, clipped probabilities."""
    if from_logits:
        return log_softmax(y_pred, axis=axis)
    return log(normalized_probabilities(y_pred, axis))
