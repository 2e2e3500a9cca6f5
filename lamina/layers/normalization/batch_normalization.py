"""``BatchNormalization``: normalize each channel with batch statistics while training and
with moving averages of them at inference (Keras 3's layer, weight for weight)."""
from __future__ import annotations

import math
import numbers

from ... import constraints, initializers, ops, regularizers
from ...ops import fused_batch_norm
from ...graph.trace import runs_for_real
from ...settings import epsilon as backend_epsilon
from ..input_spec import InputSpec
from ..layer import Layer
from . import batch_renorm
from ...distribution.batch_stats import synchronized_moments


class BatchNormalization(Layer):
    """Keras 3's ``BatchNormalization``.

    ``training=True``: ``gamma * (x - mean) / sqrt(var + epsilon) + beta`` with the batch's
    mean and (biased) variance over every axis but ``axis``, and the moving statistics
    updated in place as ``moving = moving * momentum + batch * (1 - momentum)`` (Keras's
    convention; PyTorch's ``momentum=0.1`` is ``1 - 0.99``). Otherwise the moving statistics
    are used. A frozen layer (``trainable=False``) always runs in inference mode, as in
    Keras 3. A mask (rank one less than the input) excludes positions from the batch
    statistics.

    Weights, in creation order: ``gamma`` and ``beta`` (trainable, when ``scale`` /
    ``center``), ``moving_mean`` and ``moving_variance`` (non-trainable), all ``(C,)``;
    ``renorm=True`` (batch renormalization, ``batch_renorm.py``) adds ``moving_stddev``,
    ``renorm_mean`` and ``renorm_stddev``.

    Args:
        axis: The features axis, normalized per channel (-1 for channels_last).
        momentum: Momentum of the moving mean and variance: ``moving * momentum + batch * (1 -
            momentum)``.
        epsilon: Small float added to the variance to avoid dividing by zero.
        center: Whether to add the learned offset ``beta``.
        scale: Whether to multiply by the learned scale ``gamma``.
        beta_initializer: Initializer of ``beta``.
        gamma_initializer: Initializer of ``gamma``.
        moving_mean_initializer: Initializer of ``moving_mean``.
        moving_variance_initializer: Initializer of ``moving_variance``.
        beta_regularizer: Regularizer of ``beta``, or None.
        gamma_regularizer: Regularizer of ``gamma``, or None.
        beta_constraint: Constraint of ``beta``, or None.
        gamma_constraint: Constraint of ``gamma``, or None.
        renorm: Whether to use batch renormalization (adds ``moving_stddev``, ``renorm_mean``,
            ``renorm_stddev``).
        renorm_clipping: Dict of the renormalization clip limits ``rmax``, ``rmin`` and
            ``dmax``; None: no clipping.
        renorm_momentum: Momentum of the renormalization statistics.
        synchronized: Whether the batch statistics are reduced across the processes of a
            data-parallel run.

    Example:

    >>> layer = lamina.layers.BatchNormalization()
    >>> x = np.array([[1.0], [3.0]])
    >>> layer(x, training=True).numpy().round(4)
    array([[-0.9995],
           [ 0.9995]], dtype=float32)
    """

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones",
                 moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, renorm=False, renorm_clipping=None,
                 renorm_momentum=0.99, synchronized=False, **kwargs):
        super().__init__(**kwargs)
        if isinstance(axis, (list, tuple)) and len(axis) == 1:
            axis = axis[0]                       # Keras 2 configs store axis as [3]
        if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
            raise TypeError(f"{self.name}: argument 'axis' must be an int; received {axis!r}")
        self.axis = int(axis)
        self.momentum = self._number("momentum", momentum, 0.0, 1.0)
        self.epsilon = self._number("epsilon", epsilon, 0.0, math.inf)
        self.synchronized = bool(synchronized)   # reduced across DataParallel processes
        self.renorm = bool(renorm)               # batch renormalization: batch_renorm.py
        if self.renorm:
            renorm_clipping = batch_renorm.check_clipping(self, renorm_clipping)
            renorm_momentum = self._number("renorm_momentum", renorm_momentum, 0.0, 1.0)
        self.renorm_clipping = renorm_clipping
        self.renorm_momentum = renorm_momentum
        self.center = bool(center)
        self.scale = bool(scale)
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self.supports_masking = True

    def _number(self, arg, value, low, high) -> float:
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"{self.name}: argument '{arg}' must be a number; received "
                            f"{value!r}")
        if not low <= value <= high:
            expected = f"in [{low}, {high}]" if high != math.inf else f">= {low}"
            raise ValueError(f"{self.name}: argument '{arg}' must be a number {expected}; "
                             f"received {value!r}")
        return float(value)

    def build(self, input_shape):
        rank = len(input_shape)
        if not -rank <= self.axis < rank:
            raise ValueError(f"{self.name}: argument 'axis' must be a valid axis of the "
                             f"input (rank {rank}); received axis={self.axis} for input "
                             f"shape {tuple(input_shape)}")
        channels = input_shape[self.axis]
        if channels is None:
            raise ValueError(f"{self.name}: axis {self.axis} of the input must have a known "
                             f"size; received shape {tuple(input_shape)}")
        shape = (channels,)
        self.gamma = self.beta = None
        if self.scale:
            self.gamma = self.add_weight(shape=shape, name="gamma",
                                         initializer=self.gamma_initializer,
                                         regularizer=self.gamma_regularizer,
                                         constraint=self.gamma_constraint, autocast=False)
        if self.center:
            self.beta = self.add_weight(shape=shape, name="beta",
                                        initializer=self.beta_initializer,
                                        regularizer=self.beta_regularizer,
                                        constraint=self.beta_constraint, autocast=False)
        self.moving_mean = self.add_weight(shape=shape, name="moving_mean",
                                           initializer=self.moving_mean_initializer,
                                           trainable=False, autocast=False)
        self.moving_variance = self.add_weight(shape=shape, name="moving_variance",
                                               initializer=self.moving_variance_initializer,
                                               trainable=False, autocast=False)
        if self.renorm:
            batch_renorm.build(self, shape)
        self.input_spec = InputSpec(ndim=rank, axes={self.axis: channels})
        self._reduction_axes = tuple(i for i in range(rank) if i != self.axis % rank)
        self.built = True       # also when build() is called directly (see Layer)

    def call(self, inputs, training=None, mask=None):
        if mask is not None and len(mask.shape) != len(inputs.shape) - 1:
            raise ValueError(f"{self.name}: the mask must have one dimension less than the "
                             f"inputs; received mask shape {tuple(mask.shape)} for inputs "
                             f"of shape {tuple(inputs.shape)}")
        input_dtype = inputs.dtype
        if input_dtype in ("float16", "bfloat16"):
            inputs = ops.cast(inputs, "float32")   # batch statistics overflow in float16
        dtype = inputs.dtype
        if training and self.trainable:
            # synchronized=True: the global batch's statistics under DataParallel
            moments = synchronized_moments(self, inputs, mask) if self.synchronized else None
            outputs = scale = offset = None
            if not (self.synchronized or self.renorm) and mask is None and \
                    fused_batch_norm.runs_fused(inputs):
                # one oneDNN pass each way instead of ~30 elementwise kernels (the same
                # formula; synchronized layers keep the composed form, whose sums one
                # process and DataParallel's processes round alike)
                outputs, mean, variance = fused_batch_norm.batch_norm_train(
                    inputs, self.gamma, self.beta, self.epsilon, self.axis)
            else:
                mean, variance = moments or self._moments(inputs, mask)
            if self.renorm:
                scale, offset = batch_renorm.corrected_scale_and_offset(
                    self, mean, variance, dtype)
                if runs_for_real(inputs):
                    batch_renorm.update_statistics(self, mean, variance, dtype)
            elif runs_for_real(inputs):            # shape-only symbolic calls update nothing
                keep, new = self.momentum, 1.0 - self.momentum
                for moving, batch in ((self.moving_mean, mean),
                                      (self.moving_variance, variance)):
                    moving.assign(ops.add(ops.multiply(ops.cast(moving, dtype), keep),
                                          ops.multiply(ops.stop_gradient(batch), new)))
        else:
            outputs = scale = offset = None
            mean = ops.cast(self.moving_mean, dtype)
            variance = ops.cast(self.moving_variance, dtype)
        if outputs is None:
            outputs = self._normalize(inputs, mean, variance, scale, offset)
        return ops.cast(outputs, input_dtype) if outputs.dtype != input_dtype else outputs

    def _normalize(self, x, mean, variance, scale=None, offset=None):
        """``x * inv + (beta - mean * inv)`` with ``inv = gamma / sqrt(var + epsilon)``,
        the statistics reshaped to broadcast along ``axis`` (Keras's formula); ``scale`` and
        ``offset`` (batch renormalization's) replace gamma and beta when given."""
        shape = [1] * len(x.shape)
        shape[self.axis] = x.shape[self.axis]
        inv = ops.rsqrt(ops.add(variance, self.epsilon))
        if scale is None and self.gamma is not None:
            scale = ops.cast(self.gamma, x.dtype)
        if offset is None and self.beta is not None:
            offset = ops.cast(self.beta, x.dtype)
        if scale is not None:
            inv = ops.multiply(inv, scale)
        shift = ops.negative(ops.multiply(mean, inv))
        if offset is not None:
            shift = ops.add(shift, offset)
        return ops.add(ops.multiply(x, ops.reshape(inv, shape)), ops.reshape(shift, shape))

    def _moments(self, x, mask):
        """Mean and biased variance over the reduction axes, shape ``(C,)``; with a mask,
        Keras's weighted form (masked positions excluded)."""
        axes = self._reduction_axes
        channels = (x.shape[self.axis],)
        if mask is None:
            mean = ops.mean(x, axis=axes, keepdims=True)
            variance = ops.mean(ops.square(ops.subtract(x, mean)), axis=axes)
            return ops.reshape(mean, channels), variance
        # broadcast to the input's shape, so a mask of size 1 on an axis counts every
        # position along it (Keras's weighted form)
        weights = ops.add(ops.expand_dims(ops.cast(mask, x.dtype), -1), ops.zeros_like(x))
        weighted = ops.multiply(weights, x)
        total = ops.add(ops.sum(weights, axis=axes, keepdims=True), backend_epsilon())
        mean = ops.divide(ops.sum(weighted, axis=axes, keepdims=True), total)
        squared = ops.square(ops.subtract(weighted, mean))
        variance = ops.divide(ops.sum(ops.multiply(weights, squared), axis=axes,
                                      keepdims=True), total)
        return ops.reshape(mean, channels), ops.reshape(variance, channels)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis, "momentum": self.momentum,
                "epsilon": self.epsilon, "center": self.center, "scale": self.scale,
                "beta_initializer": initializers.serialize(self.beta_initializer),
                "gamma_initializer": initializers.serialize(self.gamma_initializer),
                "moving_mean_initializer": initializers.serialize(
                    self.moving_mean_initializer),
                "moving_variance_initializer": initializers.serialize(
                    self.moving_variance_initializer),
                "beta_regularizer": regularizers.serialize(self.beta_regularizer),
                "gamma_regularizer": regularizers.serialize(self.gamma_regularizer),
                "beta_constraint": constraints.serialize(self.beta_constraint),
                "gamma_constraint": constraints.serialize(self.gamma_constraint),
                "synchronized": self.synchronized, "renorm": self.renorm,
                "renorm_clipping": self.renorm_clipping,
                "renorm_momentum": self.renorm_momentum}
