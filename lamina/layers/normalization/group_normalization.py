"""``GroupNormalization``: normalize each sample over groups of channels (Keras 3)."""
from __future__ import annotations

import numbers

from ... import constraints, initializers, ops, regularizers
from ..input_spec import InputSpec
from ..layer import Layer


class GroupNormalization(Layer):
    """Keras 3's ``GroupNormalization``: the channels on ``axis`` are split into ``groups``
    consecutive groups (``groups=-1``: one channel each, instance normalization), and each
    sample is normalized with the mean and (biased) variance of each group over every
    non-batch axis. Weights ``gamma`` and ``beta``, shape ``(C,)``.

    Args:
        groups: Number of groups the channels are split into; -1 gives one channel per group.
        axis: The channels axis.
        epsilon: Small float added to the variance to avoid dividing by zero.
        center: Whether to add the learned offset ``beta``.
        scale: Whether to multiply by the learned scale ``gamma``.
        beta_initializer: Initializer of ``beta``.
        gamma_initializer: Initializer of ``gamma``.
        beta_regularizer: Regularizer of ``beta``, or None.
        gamma_regularizer: Regularizer of ``gamma``, or None.
        beta_constraint: Constraint of ``beta``, or None.
        gamma_constraint: Constraint of ``gamma``, or None.
    """

    def __init__(self, groups=32, axis=-1, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", beta_regularizer=None,
                 gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 **kwargs):
        super().__init__(**kwargs)
        if isinstance(groups, bool) or not isinstance(groups, numbers.Integral) or \
                not (groups == -1 or groups > 0):
            raise ValueError(f"{self.name}: argument `groups` must be a positive int (or -1 "
                             f"for instance normalization); received {groups!r}")
        if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
            raise TypeError(f"{self.name}: argument 'axis' must be an int; received {axis!r}")
        if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real) or epsilon < 0:
            raise ValueError(f"{self.name}: argument 'epsilon' must be a non-negative number; "
                             f"received {epsilon!r}")
        self.groups = int(groups)
        self.axis = int(axis)
        self.epsilon = epsilon
        self.center = bool(center)
        self.scale = bool(scale)
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self.supports_masking = True
        # the statistics of float16 inputs overflow (values past 65504 become inf): the
        # inputs arrive uncast and are normalized in float32 at least, as in Keras
        self.autocast = False

    def build(self, input_shape):
        rank = len(input_shape)
        if rank < 2 or not -rank <= self.axis < rank or self.axis % rank == 0:
            raise ValueError(f"{self.name}: argument 'axis' must be a non-batch axis of the "
                             f"input; received axis={self.axis} for input shape "
                             f"{tuple(input_shape)}")
        channels = input_shape[self.axis]
        if channels is None:
            raise ValueError(f"{self.name}: axis {self.axis} of the input tensor should have "
                             f"a defined dimension but the layer received an input with "
                             f"shape {tuple(input_shape)}")
        if self.groups == -1:
            self.groups = channels
        if channels < self.groups:
            raise ValueError(f"{self.name}: the number of groups ({self.groups}) cannot be more "
                             f"than the number of channels ({channels}); received "
                             f"groups={self.groups}")
        if channels % self.groups:
            raise ValueError(f"{self.name}: the number of channels ({channels}) must be a "
                             f"multiple of argument 'groups' and at least as large; received "
                             f"groups={self.groups} (Keras words it as: Number of groups "
                             f"({self.groups}) must be a multiple of the number of channels "
                             f"({channels}).)")
        self.input_spec = InputSpec(ndim=rank, axes={self.axis: channels})
        self.gamma = self.beta = None
        if self.scale:
            self.gamma = self.add_weight(shape=(channels,), name="gamma",
                                         initializer=self.gamma_initializer,
                                         regularizer=self.gamma_regularizer,
                                         constraint=self.gamma_constraint)
        if self.center:
            self.beta = self.add_weight(shape=(channels,), name="beta",
                                        initializer=self.beta_initializer,
                                        regularizer=self.beta_regularizer,
                                        constraint=self.beta_constraint)
        self.built = True       # also when build() is called directly (see Layer)

    def call(self, inputs):
        if inputs.dtype in ("float16", "bfloat16"):
            inputs = ops.cast(inputs, "float32")
        shape = tuple(inputs.shape)
        axis = self.axis % len(shape)
        # (batch, ..., C, ...) -> (batch, ..., groups, C // groups, ...)
        grouped = [-1, *shape[1:axis], self.groups, shape[axis] // self.groups,
                   *shape[axis + 1:]]
        x = ops.reshape(inputs, grouped)
        reduce = tuple(i for i in range(1, len(grouped)) if i != axis)
        mean = ops.mean(x, axis=reduce, keepdims=True)
        centered = ops.subtract(x, mean)
        variance = ops.mean(ops.square(centered), axis=reduce, keepdims=True)
        y = ops.multiply(centered, ops.rsqrt(ops.add(variance, self.epsilon)))
        y = ops.reshape(y, (-1, *shape[1:]))
        broadcast = [1] * len(shape)
        broadcast[axis] = shape[axis]
        if self.gamma is not None:
            y = ops.multiply(y, ops.reshape(ops.cast(self.gamma, y.dtype), broadcast))
        if self.beta is not None:
            y = ops.add(y, ops.reshape(ops.cast(self.beta, y.dtype), broadcast))
        return ops.cast(y, self.compute_dtype)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "groups": self.groups, "axis": self.axis,
                "epsilon": self.epsilon, "center": self.center, "scale": self.scale,
                "beta_initializer": initializers.serialize(self.beta_initializer),
                "gamma_initializer": initializers.serialize(self.gamma_initializer),
                "beta_regularizer": regularizers.serialize(self.beta_regularizer),
                "gamma_regularizer": regularizers.serialize(self.gamma_regularizer),
                "beta_constraint": constraints.serialize(self.beta_constraint),
                "gamma_constraint": constraints.serialize(self.gamma_constraint)}
