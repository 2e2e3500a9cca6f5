"""``Normalization``: ``(inputs - mean) / sqrt(variance)`` per feature, with statistics
given or computed from data by ``adapt``."""
from __future__ import annotations

from ... import backend, ops
from ...errors import ShapeError, describe_shape
from ..input_spec import InputSpec
from ..layer import Layer
from .rescaling import _plain


class Normalization(Layer):
    """Feature-wise standardization (Keras 3's ``Normalization``).

    ``axis`` lists the axes that keep their own statistics (default the last; None: one
    mean for everything); all others are reduced. The output is
    ``(inputs - mean) / max(sqrt(variance), epsilon)``, or with ``invert=True``
    ``mean + inputs * max(sqrt(variance), epsilon)``, Keras's formula.

    Without ``mean``/``variance`` the layer has the non-trainable weights ``mean`` and
    ``variance`` (the kept axes' shape) and ``count`` (an int scalar Keras 3 keeps for old
    files and leaves at 0), and starts as the identity until :meth:`adapt` sets them.

    Args:
        axis: Axis or tuple of axes that keep their own mean and variance (default -1); None:
            one for everything.
        mean: Mean to use instead of ``adapt``'s (a number or array broadcast over the kept
            axes).
        variance: Variance to use with ``mean``.
        invert: Whether to undo the normalization: ``mean + x * sqrt(variance)``.
    """

    def __init__(self, axis=-1, mean=None, variance=None, invert=False, **kwargs):
        super().__init__(**kwargs)
        if axis is None:
            axis = ()
        elif isinstance(axis, int) and not isinstance(axis, bool):
            axis = (axis,)
        if not (isinstance(axis, (list, tuple)) and all(
                isinstance(a, int) and not isinstance(a, bool) for a in axis)):
            raise TypeError(f"{self.name}: argument 'axis' must be an int, a list of ints or "
                            f"None; received {axis!r}")
        if (mean is None) != (variance is None):
            raise ValueError(f"{self.name}: When setting values directly, both `mean` and "
                             f"`variance` must be set (pass both or neither); received "
                             f"mean={mean!r}, variance={variance!r}")
        self.axis = tuple(axis)
        self.input_mean = None if mean is None else _plain(self.name, "mean", mean)
        self.input_variance = None if variance is None else _plain(self.name, "variance",
                                                                   variance)
        self.invert = bool(invert)
        self.supports_masking = True

    def build(self, input_shape):
        ndim = len(input_shape)
        bad = [a for a in self.axis if not -ndim <= a < ndim]
        if bad:
            raise ValueError(f"{self.name}: All `axis` values must be in the range [-ndim, "
                             f"ndim) = [-{ndim}, {ndim}) to index the input's axes; received "
                             f"axis={self.axis} and input shape {describe_shape(input_shape)}")
        self._keep_axis = tuple(sorted({a % ndim for a in self.axis}))
        unknown = [d for d in self._keep_axis if input_shape[d] is None]
        if unknown:
            raise ValueError(f"{self.name}: All `axis` values to be kept must have a known "
                             f"shape (size); received axis={self.axis} and input shape "
                             f"{describe_shape(input_shape)}")
        self._reduce_axis = tuple(d for d in range(ndim) if d not in self._keep_axis)
        self._broadcast_shape = tuple(input_shape[d] if d in self._keep_axis else 1
                                      for d in range(ndim))
        stats_shape = tuple(input_shape[d] for d in self._keep_axis)
        if self.input_mean is None:
            self.adapt_mean = self.add_weight(shape=stats_shape, name="mean",
                                              initializer="zeros", trainable=False)
            self.adapt_variance = self.add_weight(shape=stats_shape, name="variance",
                                                  initializer="ones", trainable=False)
            self.count = self.add_weight(shape=(), name="count", dtype="int",
                                         initializer="zeros", trainable=False)
        # As in Keras, statistics broadcast from the right: inputs of a higher rank than the
        # one the layer was built (or adapted) for are normalized too.
        self.input_spec = InputSpec(min_ndim=ndim,
                                    axes={d - ndim: input_shape[d] for d in self._keep_axis})

    @property
    def mean(self):
        """The mean, shaped to broadcast against the input (None before build)."""
        return self._statistic(self.input_mean, "adapt_mean")

    @property
    def variance(self):
        return self._statistic(self.input_variance, "adapt_variance")

    def _statistic(self, given, weight: str):
        if not self.built:
            return None
        if given is None:
            value = ops.reshape(getattr(self, weight), self._broadcast_shape)
        else:
            value = ops.broadcast_to(ops.reshape(ops.convert_to_tensor(
                given, dtype=self.compute_dtype), self._given_shape(given)),
                self._broadcast_shape)
        return ops.cast(value, self.compute_dtype)

    def _given_shape(self, given) -> tuple:
        """The shape a given mean/variance takes before broadcasting: its axes, from the
        right, go to the kept axes (Keras's alignment), every other axis has size 1."""
        shape = list(ops.convert_to_tensor(given).shape)
        if len(shape) > len(self._keep_axis):
            raise ShapeError(f"{self.name}: 'mean' and 'variance' may have at most one axis "
                             f"per kept axis {self.axis}; received shape "
                             f"{describe_shape(shape)}")
        out = [1] * len(self._broadcast_shape)
        for size, axis in zip(reversed(shape), reversed(self._keep_axis)):
            out[axis] = size
        return tuple(out)

    def call(self, inputs):
        x = ops.cast(inputs, self.compute_dtype) if inputs.dtype != self.compute_dtype \
            else inputs
        std = ops.maximum(ops.sqrt(self.variance), backend.epsilon())
        if self.invert:
            return ops.add(self.mean, ops.multiply(x, std))
        return ops.divide(ops.subtract(x, self.mean), std)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def adapt(self, data, batch_size=None, steps=None) -> None:
        """Set ``mean`` and ``variance`` to the statistics of ``data`` over the reduced axes.

        ``data``: an array or tensor (split in batches of ``batch_size`` if given), or a list
        or iterable of batches (at most ``steps`` of them are read). Statistics are merged
        batch by batch in float64, so the result equals one pass over all the data.
        """
        if self.input_mean is not None:
            raise ValueError(f"{self.name}.adapt: the layer was given a fixed 'mean' and "
                             f"'variance'; create it without them to adapt it to data")
        total_mean = total_var = None
        total = batches = 0
        for batch in _batches(self.name, data, batch_size, steps):
            batches += 1
            shape = tuple(batch.shape)
            if not self.built:
                self._maybe_build(batch, (batch,), {})
            self._check_adapt_shape(shape)
            x = ops.cast(batch, "float64")
            count = 1
            for d in self._reduce_axis:
                count *= shape[d]
            if count == 0:
                continue
            mean = ops.mean(x, axis=self._reduce_axis) if self._reduce_axis else x
            var = ops.var(x, axis=self._reduce_axis) if self._reduce_axis else \
                ops.zeros_like(x)
            if total_mean is None:
                total_mean, total_var, total = mean, var, count
                continue
            new_total = total + count
            delta = ops.subtract(mean, total_mean)
            total_mean = ops.add(total_mean, ops.multiply(delta, count / new_total))
            total_var = ops.add(
                ops.divide(ops.add(ops.multiply(total_var, total), ops.multiply(var, count)),
                           new_total),
                ops.multiply(ops.square(delta), total * count / new_total ** 2))
            total = new_total
        if total_mean is None:
            what = "an empty iterable (no batches)" if not batches else "batches with no rows"
            raise ValueError(f"{self.name}.adapt: argument 'data' holds no values to compute "
                             f"statistics from; received {what}")
        self.adapt_mean.assign(ops.cast(total_mean, self.adapt_mean.dtype))
        self.adapt_variance.assign(ops.cast(total_var, self.adapt_variance.dtype))

    def _check_adapt_shape(self, shape: tuple) -> None:
        want = self._build_shapes or ()
        if len(shape) != len(self._broadcast_shape) or any(
                shape[d] != self._broadcast_shape[d] for d in self._keep_axis):
            raise ShapeError(f"{self.name}.adapt: data batches must have the shape the layer "
                             f"was built for, {describe_shape(want)}; received a batch of "
                             f"an incompatible shape, {describe_shape(shape)}")

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis, "invert": self.invert,
                "mean": self.input_mean, "variance": self.input_variance}


def _batches(name: str, data, batch_size, steps):
    if batch_size is not None and (isinstance(batch_size, bool) or
                                   not isinstance(batch_size, int) or batch_size <= 0):
        raise ValueError(f"{name}.adapt: argument 'batch_size' must be a positive int or "
                         f"None; received {batch_size!r}")
    if hasattr(data, "shape"):
        data = ops.convert_to_tensor(data)
        if data.ndim == 0:
            raise ShapeError(f"{name}.adapt: argument 'data' must have a batch axis; "
                             f"received a scalar")
        size = data.shape[0]
        step = batch_size or max(size, 1)
        batches = (data[i:i + step] for i in range(0, max(size, 1), step))
    elif isinstance(data, (list, tuple)) and data and not hasattr(data[0], "shape") and \
            not isinstance(data[0], tuple):
        batches = iter([ops.convert_to_tensor(data)])         # nested Python lists
    else:
        try:
            batches = (_batch_tensor(name, b) for b in data)
        except TypeError:
            raise TypeError(f"{name}.adapt: argument 'data' must be an array, a tensor or "
                            f"an iterable of batches; received {type(data).__name__}") from None
    for i, batch in enumerate(batches):
        if steps is not None and i >= steps:
            break
        yield batch


def _batch_tensor(name: str, batch):
    """One batch of an iterable as a tensor: the ``x`` of an ``(x, y)`` or
    ``(x, y, sample_weight)`` tuple, as Keras's adapt takes it."""
    if isinstance(batch, tuple) and batch:
        batch = batch[0]
    tensor = ops.convert_to_tensor(batch)
    if tensor.ndim == 0:
        raise TypeError(f"{name}.adapt: every batch of an iterable must be an array or tensor "
                        f"with a `.shape` that has a batch axis; received "
                        f"{type(batch).__name__} {batch!r}")
    return tensor
