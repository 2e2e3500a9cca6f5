"""``PReLU``: a leaky ReLU whose negative slopes are learned (Keras 3's layer)."""
from __future__ import annotations

import numbers

from ... import constraints, initializers, ops, regularizers
from ..input_spec import InputSpec
from ..layer import Layer


class PReLU(Layer):
    """``x`` for ``x >= 0``, ``alpha * x`` below, with ``alpha`` a weight of shape
    ``input_shape[1:]`` that is shared (size 1) along ``shared_axes`` (1-based input axes:
    ``shared_axes=[1, 2]`` gives one slope per channel after a ``Conv2D``).

    Args:
        alpha_initializer: Initializer of the negative slope ``alpha``.
        alpha_regularizer: Regularizer of ``alpha``, or None.
        alpha_constraint: Constraint of ``alpha``, or None.
        shared_axes: 1-based input axes along which ``alpha`` is shared (e.g. ``[1, 2]`` after a
            Conv2D); None: no sharing.
    """

    def __init__(self, alpha_initializer="Zeros", alpha_regularizer=None,
                 alpha_constraint=None, shared_axes=None, **kwargs):
        super().__init__(**kwargs)
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = constraints.get(alpha_constraint)
        if shared_axes is not None:
            shared_axes = list(shared_axes) if isinstance(shared_axes, (list, tuple)) \
                else [shared_axes]
            if any(isinstance(a, bool) or not isinstance(a, numbers.Integral) or a < 1
                   for a in shared_axes):
                raise ValueError(f"{self.name}: argument 'shared_axes' must be positive ints "
                                 f"(input axes, 0 being the batch); received {shared_axes!r}")
            shared_axes = [int(a) for a in shared_axes]
        self.shared_axes = shared_axes
        self.supports_masking = True

    def build(self, input_shape):
        rank = len(input_shape)
        shared = set(self.shared_axes or ())
        if any(a >= rank for a in shared):
            raise ValueError(f"{self.name}: argument 'shared_axes' must name axes of the "
                             f"input (1 to {rank - 1}); received {self.shared_axes} for input "
                             f"shape {tuple(input_shape)}")
        param_shape = tuple(1 if i in shared else input_shape[i] for i in range(1, rank))
        if any(d is None for d in param_shape):
            raise ValueError(f"{self.name}: every non-batch axis that is not shared must "
                             f"have a known size; received input shape {tuple(input_shape)} "
                             f"with shared_axes={self.shared_axes}")
        self.alpha = self.add_weight(shape=param_shape, name="alpha",
                                     initializer=self.alpha_initializer,
                                     regularizer=self.alpha_regularizer,
                                     constraint=self.alpha_constraint)
        axes = {i: input_shape[i] for i in range(1, rank) if i not in shared} if shared else {}
        self.input_spec = InputSpec(ndim=rank, axes=axes)
        self.built = True       # also when build() is called directly (see Layer)

    def call(self, inputs):
        negative = ops.multiply(ops.negative(self.alpha), ops.relu(ops.negative(inputs)))
        return ops.add(ops.relu(inputs), negative)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(),
                "alpha_initializer": initializers.serialize(self.alpha_initializer),
                "alpha_regularizer": regularizers.serialize(self.alpha_regularizer),
                "alpha_constraint": constraints.serialize(self.alpha_constraint),
                "shared_axes": self.shared_axes}
