"""Intersection-over-union metrics from a running confusion matrix (Keras 3's ``IoU``,
``MeanIoU``, ``BinaryIoU``, ``OneHotIoU``, ``OneHotMeanIoU``).

``total_cm[i, j]`` is the weighted number of elements labelled ``i`` and predicted ``j``;
a class's IoU is ``cm[c, c] / (row_c + column_c - cm[c, c])``. As in Keras, the state is an
integer matrix by default (``dtype="int32"``), so float weights are truncated; labels or
predictions outside ``[0, num_classes)`` and labels equal to ``ignore_class`` are skipped.
"""
from __future__ import annotations

import numbers
import warnings

from .. import ops
from ..ops.core import to_backend_tensor
from ..settings import epsilon
from ..dtypes import is_float
from ..registry import register_builtin
from .metric import Metric
from .metrics_utils import to_tensor


class _IoUBase(Metric):
    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None,
                 sparse_y_true=True, sparse_y_pred=True, axis=-1):
        super().__init__(name=name, dtype=dtype or "int32")
        self._direction = "up"
        if isinstance(num_classes, bool) or not isinstance(num_classes, numbers.Integral) \
                or num_classes < 1:
            raise ValueError(f"{type(self).__name__}: argument 'num_classes' must be a "
                             f"positive integer; received {num_classes!r}")
        self.num_classes = int(num_classes)
        self.ignore_class = ignore_class
        self.sparse_y_true = sparse_y_true
        self.sparse_y_pred = sparse_y_pred
        self.axis = axis
        self.total_cm = self.add_variable((self.num_classes, self.num_classes), "zeros",
                                          name="total_confusion_matrix")

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        y_true = to_tensor(y_true, like=self._backend)
        y_pred = to_tensor(y_pred, like=y_true)
        if not self.sparse_y_true:
            y_true = ops.argmax(y_true, axis=self.axis)
        if not self.sparse_y_pred:
            y_pred = ops.argmax(y_pred, axis=self.axis)
        y_true = ops.reshape(ops.cast(y_true, self.dtype), (-1,))
        y_pred = ops.reshape(ops.cast(y_pred, self.dtype), (-1,))
        if sample_weight is None:
            weight = ops.ones_like(y_true)
        else:
            weight = to_tensor(sample_weight, like=y_true)
            if is_float(weight.dtype) and not is_float(self.dtype):
                warnings.warn(f"{self.name}: sample_weight is float but the metric's dtype "
                              f"is {self.dtype}: type casting truncates the weights to "
                              f"integers; pass integer weights or a float dtype", UserWarning,
                              stacklevel=2)
            weight = ops.cast(weight, self.dtype)
            if weight.ndim > 1:
                weight = ops.reshape(weight, (-1,))
            weight = ops.broadcast_to(weight, y_true.shape)
        n = self.num_classes
        valid = ops.logical_and(
            ops.logical_and(ops.greater_equal(y_true, 0), ops.less(y_true, n)),
            ops.logical_and(ops.greater_equal(y_pred, 0), ops.less(y_pred, n)))
        if self.ignore_class is not None:
            valid = ops.logical_and(valid, ops.not_equal(y_true, self.ignore_class))
        zeros = ops.zeros_like(y_true)
        y_true = ops.where(valid, y_true, zeros)
        y_pred = ops.where(valid, y_pred, zeros)
        weight = ops.where(valid, weight, ops.zeros_like(weight))
        # cm = one_hot(true)^T @ (weight * one_hot(pred)); float32 counts are exact up to
        # 2**24 per batch.
        true_hot = ops.one_hot(ops.cast(y_true, "int32"), n, dtype="float32")
        pred_hot = ops.multiply(ops.one_hot(ops.cast(y_pred, "int32"), n, dtype="float32"),
                                ops.expand_dims(ops.cast(weight, "float32"), 1))
        batch_cm = ops.matmul(ops.transpose(true_hot), pred_hot)
        self.total_cm.assign_add(ops.cast(batch_cm, self.dtype))


@register_builtin
class IoU(_IoUBase):
    """The mean IoU of the classes ``target_class_ids`` (classes that never occur, whose
    denominator is 0, are left out of the mean).

    Args:
        num_classes: int, the number of classes the predictions may take.
        target_class_ids: a list or tuple of the class ids whose IoU is averaged.
        name: the metric's name (default ``None: an automatic name``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
        ignore_class: int or None; the label value left out of the metric.
        sparse_y_true: bool; labels are integers (True) or one-hot/scores (False).
        sparse_y_pred: bool; predictions are class ids (True) or per-class scores whose
            argmax is taken along ``axis`` (False).
        axis: the class axis of dense inputs (default -1).
    """

    def __init__(self, num_classes, target_class_ids, name=None, dtype=None, ignore_class=None,
                 sparse_y_true=True, sparse_y_pred=True, axis=-1):
        super().__init__(num_classes, name=name, dtype=dtype, ignore_class=ignore_class,
                         sparse_y_true=sparse_y_true, sparse_y_pred=sparse_y_pred, axis=axis)
        ids = list(target_class_ids)
        if not ids or any(isinstance(i, bool) or not isinstance(i, numbers.Integral)
                          or not 0 <= i < self.num_classes for i in ids):
            raise ValueError(f"{type(self).__name__}: argument 'target_class_ids' must be a "
                             f"non-empty list of class ids in [0, {self.num_classes}); "
                             f"received {target_class_ids!r}")
        self.target_class_ids = [int(i) for i in ids]

    def result(self):
        cm = ops.cast(self.total_cm.value, "float32")
        n = self.num_classes
        eye = ops.one_hot(ops.arange(n, dtype="int32"), n, dtype="float32")
        tp = ops.sum(ops.multiply(cm, eye), axis=1)
        denominator = ops.subtract(ops.add(ops.sum(cm, axis=0), ops.sum(cm, axis=1)), tp)
        ids = to_backend_tensor(self.target_class_ids, dtype="int32", backend=self._backend)
        tp, denominator = ops.take(tp, ids), ops.take(denominator, ids)
        present = ops.greater(denominator, 1e-9)
        iou = ops.divide(tp, ops.add(denominator, epsilon()))
        iou = ops.where(present, iou, ops.zeros_like(iou))
        count = ops.sum(ops.cast(present, "float32"))
        return ops.divide(ops.sum(iou, axis=self.axis), ops.add(count, epsilon()))

    def get_config(self) -> dict:
        return {**super().get_config(), "num_classes": self.num_classes,
                "target_class_ids": self.target_class_ids, "ignore_class": self.ignore_class,
                "sparse_y_true": self.sparse_y_true, "sparse_y_pred": self.sparse_y_pred,
                "axis": self.axis}


@register_builtin
class BinaryIoU(IoU):
    """IoU of two classes: a prediction ``>= threshold`` is class 1.

    Args:
        target_class_ids: the class ids (0 and/or 1) averaged (default ``(0, 1)``).
        threshold: float; a prediction at or above it is class 1 (default 0.5).
        name: the metric's name (default ``None: an automatic name``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
    """

    def __init__(self, target_class_ids=(0, 1), threshold=0.5, name=None, dtype=None):
        super().__init__(2, target_class_ids, name=name, dtype=dtype)
        self.threshold = threshold

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        y_pred = ops.cast(to_tensor(y_pred, like=self._backend), "float32")
        super().update_state(y_true, ops.greater_equal(y_pred, self.threshold),
                             sample_weight=sample_weight)

    def get_config(self) -> dict:
        return {"target_class_ids": self.target_class_ids, "threshold": self.threshold,
                "name": self.name, "dtype": self.dtype}


@register_builtin
class MeanIoU(IoU):
    """The mean IoU over all ``num_classes`` classes.

    Args:
        num_classes: int, the number of classes the predictions may take.
        name: the metric's name (default ``None: an automatic name``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
        ignore_class: int or None; the label value left out of the metric.
        sparse_y_true: bool; labels are integers (True) or one-hot/scores (False).
        sparse_y_pred: bool; predictions are class ids (True) or per-class scores whose
            argmax is taken along ``axis`` (False).
        axis: the class axis of dense inputs (default -1).


    Example:

    >>> import lamina as keras
    >>> m = keras.metrics.MeanIoU(num_classes=2)
    >>> m.update_state([0, 0, 1, 1], [0, 1, 0, 1])
    >>> round(float(m.result()), 4)
    0.3333
    """

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None,
                 sparse_y_true=True, sparse_y_pred=True, axis=-1):
        every = list(range(num_classes)) if isinstance(num_classes, int) else [0]
        super().__init__(num_classes, every, name=name, dtype=dtype, ignore_class=ignore_class,
                         sparse_y_true=sparse_y_true, sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self) -> dict:
        return {"num_classes": self.num_classes, "name": self.name, "dtype": self.dtype,
                "ignore_class": self.ignore_class, "sparse_y_true": self.sparse_y_true,
                "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}


@register_builtin
class OneHotIoU(IoU):
    """:class:`IoU` for one-hot labels (and, unless ``sparse_y_pred``, per-class scores).

    Args:
        num_classes: int, the number of classes the predictions may take.
        target_class_ids: a list or tuple of the class ids whose IoU is averaged.
        name: the metric's name (default ``None: an automatic name``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
        ignore_class: int or None; the label value left out of the metric.
        sparse_y_pred: bool; predictions are class ids (True) or per-class scores whose
            argmax is taken along ``axis`` (False).
        axis: the class axis of dense inputs (default -1).
    """

    def __init__(self, num_classes, target_class_ids, name=None, dtype=None, ignore_class=None,
                 sparse_y_pred=False, axis=-1):
        super().__init__(num_classes, target_class_ids, name=name, dtype=dtype,
                         ignore_class=ignore_class, sparse_y_true=False,
                         sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self) -> dict:
        return {"num_classes": self.num_classes, "target_class_ids": self.target_class_ids,
                "name": self.name, "dtype": self.dtype, "ignore_class": self.ignore_class,
                "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}


@register_builtin
class OneHotMeanIoU(MeanIoU):
    """:class:`MeanIoU` for one-hot labels (and, unless ``sparse_y_pred``, scores).

    Args:
        num_classes: int, the number of classes the predictions may take.
        name: the metric's name (default ``None: an automatic name``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
        ignore_class: int or None; the label value left out of the metric.
        sparse_y_pred: bool; predictions are class ids (True) or per-class scores whose
            argmax is taken along ``axis`` (False).
        axis: the class axis of dense inputs (default -1).
    """

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None,
                 sparse_y_pred=False, axis=-1):
        super().__init__(num_classes, name=name, dtype=dtype, ignore_class=ignore_class,
                         sparse_y_true=False, sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self) -> dict:
        return {"num_classes": self.num_classes, "name": self.name, "dtype": self.dtype,
                "ignore_class": self.ignore_class, "sparse_y_pred": self.sparse_y_pred,
                "axis": self.axis}
