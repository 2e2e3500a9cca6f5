"""Generalized crossentropy (Zhang & Sabuncu 2018), robust to noisy labels: ``(1 - p^q) / q``
where ``p`` is the predicted probability of the true class (Keras 3's formula)."""
from __future__ import annotations

from .. import ops
from ..registry import register_builtin
from .checks import as_prediction
from .loss import BuiltinLoss
from .reduction import convert_like


def _check_q(owner: str, q):
    if isinstance(q, bool) or not isinstance(q, (int, float)) or not 0 < q < 1:
        raise ValueError(f"{owner}: argument 'q' must be a number in the open interval "
                         f"(0, 1); received q={q!r}")
    return q


@register_builtin
def categorical_generalized_cross_entropy(y_true, y_pred, q):
    """Compute the generalized crossentropy, robust to noisy labels.

    After Zhang & Sabuncu, 2018: ``loss = (1 - p**q) / q``, ``p`` the predicted
    probability of the true class.

    Args:
        y_true: Integer labels, of shape ``(batch, ...)``.
        y_pred: The predicted probabilities, of shape ``(batch, ..., num_classes)``.
        q: The robustness parameter, in the open interval (0, 1): values near 0 behave
            like crossentropy, values near 1 like the mean absolute error.

    Returns:
        The loss per sample: a tensor of the shape of ``y_true``.

    Example:

    >>> y_true = np.array([1, 2])
    >>> y_pred = np.array([[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]])
    >>> lamina.losses.categorical_generalized_cross_entropy(y_true, y_pred, q=0.5).numpy().round(4)
    array([0.0506, 1.3675])
    """
    y_pred = as_prediction(y_pred)
    labels = ops.cast(convert_like(y_true, y_pred), "int32")
    hot = ops.one_hot(labels, y_pred.shape[-1], dtype=y_pred.dtype)
    p = ops.sum(ops.multiply(y_pred, hot), axis=-1)
    return ops.divide(ops.subtract(1.0, ops.power(p, q)), q)


@register_builtin
class CategoricalGeneralizedCrossEntropy(BuiltinLoss):
    """Compute the generalized crossentropy, robust to noisy labels.

    The loss object of :func:`categorical_generalized_cross_entropy`, reduced over the batch.

    After Zhang & Sabuncu, 2018: ``loss = (1 - p**q) / q``, ``p`` the predicted
    probability of the true class.

    Args:
        q: The robustness parameter, in the open interval (0, 1): values near 0 behave
            like crossentropy, values near 1 like the mean absolute error.
            Defaults to 0.5.
        reduction: How the per-sample losses are reduced: ``"sum_over_batch_size"``
            (default: their mean), ``"sum"``, ``"mean"``, ``"mean_with_sample_weight"``
            (the weighted sum over the sum of the weights), or ``"none"``/``None`` (no
            reduction).
        name: The loss's name. Defaults to ``"categorical_generalized_cross_entropy"``.
        dtype: The dtype the loss is computed in, or a dtype policy (its compute dtype);
            ``None`` (default) takes ``floatx()``.

    Raises:
        ValueError: If ``q`` is not in (0, 1).

    Example:

    >>> y_true = np.array([1, 2])
    >>> y_pred = np.array([[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]])
    >>> loss = lamina.losses.CategoricalGeneralizedCrossEntropy()
    >>> round(float(loss(y_true, y_pred)), 4)
    0.7091
    >>> model.compile(optimizer="adam", loss=lamina.losses.CategoricalGeneralizedCrossEntropy())
    """

    def __init__(self, q=0.5, reduction="sum_over_batch_size",
                 name="categorical_generalized_cross_entropy", dtype=None):
        super().__init__(categorical_generalized_cross_entropy, name, reduction, dtype,
                         q=_check_q(type(self).__name__, q))
