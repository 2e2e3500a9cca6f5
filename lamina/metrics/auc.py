"""AUC: the area under the ROC or precision-recall curve, from counts at fixed thresholds.

As in Keras, the thresholds are ``-eps, 1/(T-1), ..., (T-2)/(T-1), 1+eps`` (T =
``num_thresholds``, eps = ``backend.epsilon()``) or, when ``thresholds`` is given, the
sorted list between the same two end points. ``result()`` is a Riemann sum over the
curve's points, one per threshold: for ROC the x axis is the false positive rate and y
the recall; for PR x is the recall and y the precision; for PRGAIN (Flach & Kull's
precision-recall-gain curve) x is the recall gain and y the precision gain (see
:meth:`AUC.prgain_curve`). ``summation_method`` picks the
height of each slice: 'interpolation' (the mean of its two ends; for PR, Davis &
Goadrich's interpolation of tp and fp instead), 'minoring' (the smaller end) or
'majoring' (the larger).
"""
from __future__ import annotations

from .. import ops
from ..settings import epsilon
from ..dtypes import is_float
from ..registry import register_builtin
from .confusion_utils import evenly_distributed, parse_thresholds, ratio, update_confusion_matrix
from .metric import Metric
from .metrics_utils import divide_no_nan, to_tensor

_CURVES = {"ROC": "ROC", "roc": "ROC", "PR": "PR", "pr": "PR", "PRGAIN": "PRGAIN",
           "prgain": "PRGAIN"}
_SUMMATIONS = {"interpolation": "interpolation", "Interpolation": "interpolation",
               "majoring": "majoring", "Majoring": "majoring",
               "minoring": "minoring", "Minoring": "minoring"}
_COUNTS = ("true_positives", "false_positives", "true_negatives", "false_negatives")


@register_builtin
class AUC(Metric):
    """Area under the ROC (default) or PR curve (Keras 3's ``keras.metrics.AUC``).

    ``multi_label=True`` keeps one curve per column of ``y_pred`` (shape ``(batch,
    labels)``) and averages their areas, weighted by ``label_weights`` when given;
    otherwise every element is one (label, prediction) pair and ``label_weights`` weighs
    the columns. ``from_logits=True`` applies a sigmoid to ``y_pred`` first.

    Args:
        num_thresholds: int > 1, the number of thresholds of the curve's discretization
            (default 200).
        curve: ``"ROC"`` (default) or ``"PR"`` (precision-recall).
        summation_method: ``"interpolation"`` (default), ``"minoring"`` or ``"majoring"``
            (left or right Riemann sums).
        name: the metric's name (default ``auc``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
        thresholds: an optional list of thresholds in [0, 1]; used instead of
            ``num_thresholds`` (0 - epsilon and 1 + epsilon are added).
        multi_label: bool; one curve per label column, the areas averaged (default False).
        num_labels: int or None; the number of label columns with ``multi_label``.
        label_weights: optional per-label weights of the average (not with ROC's
            ``multi_label=False``).
        from_logits: bool; apply a sigmoid to ``y_pred`` first (default False).


    Example:

    >>> import lamina as keras
    >>> m = keras.metrics.AUC(num_thresholds=3)
    >>> m.update_state([0, 0, 1, 1], [0, 0.5, 0.3, 0.9])
    >>> float(m.result())
    0.75
    """

    def __init__(self, num_thresholds: int = 200, curve: str = "ROC",
                 summation_method: str = "interpolation", name: str | None = None, dtype=None,
                 thresholds=None, multi_label: bool = False, num_labels: int | None = None,
                 label_weights=None, from_logits: bool = False):
        # Keras's phrases lead ('Invalid AUC curve value: "x".'), then the choices.
        if curve not in _CURVES:
            raise ValueError(f'AUC: Invalid AUC curve value: "{curve}". Argument \'curve\' '
                             f"must be one of 'ROC', 'PR' or 'PRGAIN'")
        if summation_method not in _SUMMATIONS:
            raise ValueError(f'AUC: Invalid AUC summation method value: "{summation_method}". '
                             f"Argument 'summation_method' must be one of 'interpolation', "
                             f"'majoring' or 'minoring'")
        self._init_from_thresholds = thresholds is not None
        if thresholds is not None:
            inner = sorted(parse_thresholds("AUC", thresholds, 0.5))
            self.num_thresholds = len(inner) + 2
            evenly = evenly_distributed([0.0] + inner + [1.0])
        else:
            if isinstance(num_thresholds, bool) or not isinstance(num_thresholds, int) \
                    or num_thresholds <= 1:
                raise ValueError(f"AUC: Argument `num_thresholds` must be an integer > 1; "
                                 f"received num_thresholds={num_thresholds!r}")
            self.num_thresholds = num_thresholds
            inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            evenly = True
        self._thresholds = [0.0 - epsilon()] + inner + [1.0 + epsilon()]
        self._thresholds_distributed_evenly = evenly
        self.curve = _CURVES[curve]
        self.summation_method = _SUMMATIONS[summation_method]
        super().__init__(name=name, dtype=dtype)
        self._direction = "up"
        self.multi_label = bool(multi_label)
        self.num_labels = num_labels
        self.label_weights = None
        if label_weights is not None:
            self.label_weights = to_tensor(label_weights, dtype=self.dtype, like=self._backend)
        self._from_logits = bool(from_logits)
        self._built = False
        if self.multi_label:
            if num_labels:
                self._build((None, num_labels))
        else:
            if num_labels:
                raise ValueError(f"AUC: argument 'num_labels' is used only with "
                                 f"multi_label=True; received num_labels={num_labels!r}")
            self._build(None)

    @property
    def thresholds(self) -> list:
        """The thresholds, end points included."""
        return list(self._thresholds)

    def _build(self, shape) -> None:
        if self.multi_label:
            if len(shape) != 2:
                raise ValueError(f"AUC: with multi_label=True y_pred must have rank 2 "
                                 f"(batch, labels); received shape {tuple(shape)}")
            self._num_labels = shape[1]
            variable_shape = (self.num_thresholds, self._num_labels)
        else:
            variable_shape = (self.num_thresholds,)
        for count in _COUNTS:
            setattr(self, count, self.add_variable(variable_shape, "zeros", name=count))
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        y_pred = to_tensor(y_pred, like=self._backend)
        if not self._built:
            self._build(y_pred.shape)
        if self._from_logits:
            y_pred = ops.sigmoid(y_pred if is_float(y_pred.dtype) else
                                 ops.cast(y_pred, self.dtype))
        update_confusion_matrix(
            self.name, dict(zip(("tp", "fp", "tn", "fn"), self._counts())), y_true, y_pred,
            self._thresholds, evenly=self._thresholds_distributed_evenly,
            sample_weight=sample_weight, multi_label=self.multi_label,
            label_weights=None if self.multi_label else self.label_weights)

    def _counts(self) -> list:
        return [getattr(self, count) for count in _COUNTS]

    def _aggregate(self, areas):
        if not self.multi_label:
            return ops.sum(areas)
        by_label = ops.sum(areas, axis=0)
        if self.label_weights is None:
            return ops.mean(by_label)
        return divide_no_nan(ops.sum(ops.multiply(by_label, self.label_weights)),
                             ops.sum(self.label_weights))

    def interpolate_pr_auc(self):
        """PR-AUC with tp and fp linear between thresholds (Davis & Goadrich, 2006):
        slice i adds ``slope * (dtp + intercept * log(P_i / P_i+1)) / positives``, where
        P = tp + fp, slope = dtp / dP and intercept = tp_i+1 - slope * P_i+1."""
        tp, fp, _, fn = self._counts()
        dtp = ops.subtract(tp[:-1], tp[1:])
        p = ops.add(tp, fp)
        dp = ops.subtract(p[:-1], p[1:])
        slope = divide_no_nan(dtp, ops.maximum(dp, 0.0))
        intercept = ops.subtract(tp[1:], ops.multiply(slope, p[1:]))
        both_positive = ops.logical_and(ops.greater(p[:-1], 0), ops.greater(p[1:], 0))
        p_ratio = ops.where(both_positive, divide_no_nan(p[:-1], ops.maximum(p[1:], 0.0)),
                            ops.ones_like(p[1:]))
        area = ops.multiply(slope, ops.add(dtp, ops.multiply(intercept, ops.log(p_ratio))))
        positives = ops.maximum(ops.add(tp[1:], fn[1:]), 0.0)
        return self._aggregate(divide_no_nan(area, positives))

    def prgain_curve(self):
        """(recall gain, precision gain) at each threshold, as Keras computes them:
        ``1 - (P / N) * fn / tp`` and ``1 - (P / N) * fp / tp`` (P and N the positives and
        negatives). Where tp is 0 the gains are 0 and 1, and a negative recall gain (recall
        below the positive rate) is 0: both fixes overestimate the area of a classifier
        anti-correlated with the labels at some threshold, as in Keras."""
        tp, fp, tn, fn = self._counts()
        scale = divide_no_nan(ops.add(tp, fn), ops.add(tn, fp))
        recall_gain = ops.subtract(1.0, ops.multiply(scale, divide_no_nan(fn, tp)))
        precision_gain = ops.subtract(1.0, ops.multiply(scale, divide_no_nan(fp, tp)))
        no_tp = ops.equal(tp, 0.0)
        recall_gain = ops.where(no_tp, ops.zeros_like(recall_gain), recall_gain)
        precision_gain = ops.where(no_tp, ops.ones_like(precision_gain), precision_gain)
        return ops.maximum(recall_gain, 0.0), precision_gain

    def result(self):
        if not self._built:                 # multi_label before the first update
            return ops.zeros((), self.dtype)
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self.interpolate_pr_auc()
        tp, fp, tn, fn = self._counts()
        if self.curve == "ROC":
            x, y = ratio(fp, tn), ratio(tp, fn)
        elif self.curve == "PR":
            x, y = ratio(tp, fn), ratio(tp, fp)
        else:
            x, y = self.prgain_curve()
        if self.summation_method == "interpolation":
            heights = ops.multiply(ops.add(y[:-1], y[1:]), 0.5)
        elif self.summation_method == "minoring":
            heights = ops.minimum(y[:-1], y[1:])
        else:
            heights = ops.maximum(y[:-1], y[1:])
        return self._aggregate(ops.multiply(ops.subtract(x[:-1], x[1:]), heights))

    def get_config(self) -> dict:
        label_weights = self.label_weights
        config = {"num_thresholds": self.num_thresholds, "curve": self.curve,
                  "summation_method": self.summation_method, "multi_label": self.multi_label,
                  "num_labels": self.num_labels,
                  "label_weights": None if label_weights is None else label_weights.tolist(),
                  "from_logits": self._from_logits}
        if self._init_from_thresholds:
            config["thresholds"] = self.thresholds[1:-1]
        return {**super().get_config(), **config}
