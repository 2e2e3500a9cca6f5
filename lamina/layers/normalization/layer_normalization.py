"""``LayerNormalization``: normalize each sample over ``axis`` (Keras 3's layer)."""
from __future__ import annotations

import numbers

from ... import constraints, initializers, ops, regularizers
from ..layer import Layer


def check_axes(layer: Layer, axis, keras_phrase: str = "Expected an int or a list/tuple "
               "of ints for the argument 'axis'") -> int | list:
    """An int, or a list of ints from a list/tuple; TypeError naming the layer otherwise
    (with Keras's wording of the rule, which differs between layers, in parentheses)."""
    values = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    if not values or any(isinstance(a, bool) or not isinstance(a, numbers.Integral)
                         for a in values):
        raise TypeError(f"{layer.name}: argument 'axis' must be an int or a non-empty list "
                        f"of ints; received {axis!r} ({keras_phrase})")
    return [int(a) for a in values] if isinstance(axis, (list, tuple)) else int(axis)


def resolve_axes(layer: Layer, axes, input_shape) -> list[int]:
    """``axes`` as non-negative, distinct axes of ``input_shape``, or ValueError."""
    rank = len(input_shape)
    axes = axes if isinstance(axes, list) else [axes]
    if any(not -rank <= a < rank for a in axes) or len({a % rank for a in axes}) < len(axes):
        raise ValueError(f"{layer.name}: argument 'axis' must name distinct axes of the "
                         f"input (rank {rank}); received axis={axes} for input shape "
                         f"{tuple(input_shape)}")
    return [a % rank for a in axes]


class LayerNormalization(Layer):
    """Keras 3's ``LayerNormalization``: ``(x - mean) / sqrt(var + epsilon) * gamma + beta``
    with the mean and (biased) variance of each sample over ``axis``.

    Weights: ``gamma`` (when ``scale`` or ``rms_scaling``) and ``beta`` (when ``center``
    and not ``rms_scaling``), shaped like the normalized axes. ``rms_scaling=True`` gives
    ``x / sqrt(var + epsilon) * gamma``, as Keras computes it. As in Keras, ``axis`` is
    stored as a list once the layer is built.

    Args:
        axis: Axis or list of axes normalized (their mean and variance per sample).
        epsilon: Small float added to the variance to avoid dividing by zero.
        center: Whether to add the learned offset ``beta``.
        scale: Whether to multiply by the learned scale ``gamma``.
        beta_initializer: Initializer of ``beta``.
        gamma_initializer: Initializer of ``gamma``.
        beta_regularizer: Regularizer of ``beta``, or None.
        gamma_regularizer: Regularizer of ``gamma``, or None.
        beta_constraint: Constraint of ``beta``, or None.
        gamma_constraint: Constraint of ``gamma``, or None.

    Example:

    >>> lamina.layers.LayerNormalization()(np.array([[1.0, 3.0]])).numpy().round(4)
    array([[-0.9995,  0.9995]], dtype=float32)
    """

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", beta_regularizer=None,
                 gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 **kwargs):
        # Keras 3.15 takes the deprecated rms_scaling through **kwargs (use RMSNormalization)
        rms_scaling = kwargs.pop("rms_scaling", False)
        super().__init__(**kwargs)
        self.axis = check_axes(self, axis)
        if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real) or epsilon < 0:
            raise ValueError(f"{self.name}: argument 'epsilon' must be a non-negative number; "
                             f"received {epsilon!r}")
        self.epsilon = epsilon
        self.center = bool(center)
        self.scale = bool(scale)
        self.rms_scaling = bool(rms_scaling)
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self.supports_masking = True
        self.autocast = False

    def build(self, input_shape):
        axes = resolve_axes(self, self.axis, input_shape)
        shape = tuple(input_shape[a] for a in axes)
        if any(d is None for d in shape):
            raise ValueError(f"{self.name}: the normalized axes {self.axis} must have known "
                             f"sizes; received input shape {tuple(input_shape)}")
        if not isinstance(self.axis, list):
            self.axis = [self.axis]
        self.gamma = self.beta = None
        if self.scale or self.rms_scaling:
            self.gamma = self.add_weight(name="gamma", shape=shape,
                                         initializer=self.gamma_initializer,
                                         regularizer=self.gamma_regularizer,
                                         constraint=self.gamma_constraint, autocast=False)
        if self.center and not self.rms_scaling:
            self.beta = self.add_weight(name="beta", shape=shape,
                                        initializer=self.beta_initializer,
                                        regularizer=self.beta_regularizer,
                                        constraint=self.beta_constraint, autocast=False)
        self.built = True       # also when build() is called directly (see Layer)

    def call(self, inputs):
        x = ops.cast(inputs, self.compute_dtype)
        out_dtype = x.dtype
        if x.dtype in ("float16", "bfloat16") and self.dtype == "float32":
            x = ops.cast(x, "float32")        # as stable as a fused float32 kernel
        axes = resolve_axes(self, self.axis, x.shape)
        broadcast = [1] * len(x.shape)
        for a in axes:
            broadcast[a] = x.shape[a]

        def weight(v):
            return None if v is None else ops.reshape(ops.cast(v, x.dtype), broadcast)

        gamma, beta = weight(self.gamma), weight(self.beta)
        mean = ops.mean(x, axis=tuple(axes), keepdims=True)
        centered = ops.subtract(x, mean)
        variance = ops.mean(ops.square(centered), axis=tuple(axes), keepdims=True)
        inv = ops.rsqrt(ops.add(variance, self.epsilon))
        if self.rms_scaling:
            outputs = ops.multiply(ops.multiply(x, inv), gamma)
        else:
            if gamma is not None:
                inv = ops.multiply(inv, gamma)
            outputs = ops.multiply(centered, inv)
            if beta is not None:
                outputs = ops.add(outputs, beta)
        return ops.cast(outputs, out_dtype)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis, "epsilon": self.epsilon,
                "center": self.center, "scale": self.scale, "rms_scaling": self.rms_scaling,
                "beta_initializer": initializers.serialize(self.beta_initializer),
                "gamma_initializer": initializers.serialize(self.gamma_initializer),
                "beta_regularizer": regularizers.serialize(self.beta_regularizer),
                "gamma_regularizer": regularizers.serialize(self.gamma_regularizer),
                "beta_constraint": constraints.serialize(self.beta_constraint),
                "gamma_constraint": constraints.serialize(self.gamma_constraint)}
