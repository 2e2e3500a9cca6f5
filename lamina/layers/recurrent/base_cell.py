"""What SimpleRNNCell, LSTMCell and GRUCell share: their common arguments, weight creation,
per-sequence dropout masks (Keras's ``DropoutRNNCell``) and zero initial states."""
from __future__ import annotations

from ... import activations, constraints, initializers, ops, regularizers, tree
from ...random import SeedGenerator
from ...random import dropout as random_dropout
from ..layer import Layer


def check_units(layer_name: str, units) -> int:
    if isinstance(units, bool) or not isinstance(units, int) or units <= 0:
        raise ValueError(f"{layer_name}: argument 'units' must be a positive int; "
                         f"received {units!r}")
    return units


def check_rate(layer_name: str, argument: str, rate) -> float:
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate <= 1:
        raise ValueError(f"{layer_name}: argument '{argument}' must be a float in [0, 1]; "
                         f"received {rate!r}")
    return float(rate)


class RNNCellBase(Layer):
    """One timestep of a recurrent layer: ``call(inputs, states, training)`` returns
    ``(output, new_states)``. Subclasses set ``state_size``/``output_size`` and write
    ``build`` (with :meth:`_add_weights`) and ``call``.

    Dropout masks are drawn once per sequence (the RNN layer resets them around its time
    loop), as Keras does. With ``recurrent_dropout`` the gated cells draw one mask per
    gate (``dropout_mask_count``), Keras's "implementation 1".

    A cell may also be called as ``cell([inputs, *states])``, one flat list: that is how a
    functional graph with a single input list (or the layer test harness) feeds it.
    """

    dropout_mask_count = None

    def __init__(self, units, activation="tanh", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, seed=None,
                 **kwargs):
        kwargs.pop("implementation", None)      # Keras's kernel choice: one path here
        super().__init__(**kwargs)
        self.units = check_units(self.name, units)
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.dropout = check_rate(self.name, "dropout", dropout)
        self.recurrent_dropout = check_rate(self.name, "recurrent_dropout", recurrent_dropout)
        self.seed = seed
        self.seed_generator = SeedGenerator(seed)
        self.output_size = self.units
        self._dropout_mask = None
        self._recurrent_dropout_mask = None

    # ---------------------------------------------------------------- weights
    def _add_weights(self, input_shape, gates: int, bias_shape, bias_initializer) -> None:
        """``kernel`` (input_dim, gates*units), ``recurrent_kernel`` (units, gates*units)
        and ``bias``, in Keras's creation order."""
        if _is_shape_list(input_shape):
            input_shape = input_shape[0]
        input_dim = input_shape[-1]
        if input_dim is None:
            raise ValueError(f"{self.name}: the last dimension of the input must be known to "
                             f"build the cell; received shape {tuple(input_shape)}")
        self.kernel = self.add_weight(shape=(input_dim, gates * self.units), name="kernel",
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight(
            shape=(self.units, gates * self.units), name="recurrent_kernel",
            initializer=self.recurrent_initializer, regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(shape=bias_shape, name="bias",
                                        initializer=bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)

    # ---------------------------------------------------------------- call helpers
    def _unpack(self, inputs, states):
        """``(inputs, states)`` from ``call(inputs, states)`` or ``call([inputs, *states])``."""
        if states is None:
            if not isinstance(inputs, (list, tuple)) or len(inputs) < 2:
                raise ValueError(f"{self.name}: a cell is called as cell(inputs, states) or "
                                 f"cell([inputs, *states]); received no states")
            inputs, states = inputs[0], list(inputs[1:])
        if not tree.is_nested(states):
            states = [states]
        return inputs, list(states)

    def _projection(self, x, kernel, masks):
        """``x @ kernel``, with ``x`` dropped out first by one mask, or by one mask per gate
        (each gate's block of ``kernel`` then sees its own masked copy of ``x``)."""
        if masks is None:
            return ops.matmul(x, kernel)
        if not isinstance(masks, list):
            return ops.matmul(ops.multiply(x, masks), kernel)
        blocks = ops.split(kernel, len(masks), axis=-1)
        return ops.concatenate([ops.matmul(ops.multiply(x, m), k)
                                for m, k in zip(masks, blocks)], axis=-1)

    # ---------------------------------------------------------------- dropout masks
    def _draw_masks(self, like, rate):
        ones = ops.ones_like(like)
        if self.dropout_mask_count is None:
            return random_dropout(ones, rate, seed=self.seed_generator)
        return [random_dropout(ones, rate, seed=self.seed_generator)
                for _ in range(self.dropout_mask_count)]

    def get_dropout_mask(self, step_input):
        """The input mask(s) of this sequence (drawn at the first step), or None."""
        if self._dropout_mask is None and 0 < self.dropout < 1:
            self._dropout_mask = self._draw_masks(step_input, self.dropout)
        return self._dropout_mask

    def get_recurrent_dropout_mask(self, state):
        if self._recurrent_dropout_mask is None and 0 < self.recurrent_dropout < 1:
            self._recurrent_dropout_mask = self._draw_masks(state, self.recurrent_dropout)
        return self._recurrent_dropout_mask

    def reset_dropout_mask(self) -> None:
        self._dropout_mask = None

    def reset_recurrent_dropout_mask(self) -> None:
        self._recurrent_dropout_mask = None

    def _masks(self, inputs, h_tm1, training):
        """(input masks, recurrent masks) for this step: None outside training."""
        if not training:
            return None, None
        return self.get_dropout_mask(inputs), self.get_recurrent_dropout_mask(h_tm1)

    # ---------------------------------------------------------------- states and config
    def get_initial_state(self, batch_size=None):
        sizes = self.state_size if isinstance(self.state_size, (list, tuple)) else \
            [self.state_size]
        return [ops.zeros((batch_size, d), dtype=self.compute_dtype) for d in sizes]

    def get_config(self) -> dict:
        return {**super().get_config(), "units": self.units,
                "activation": activations.serialize(self.activation),
                "use_bias": self.use_bias,
                "kernel_initializer": initializers.serialize(self.kernel_initializer),
                "recurrent_initializer": initializers.serialize(self.recurrent_initializer),
                "bias_initializer": initializers.serialize(self.bias_initializer),
                "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
                "recurrent_regularizer": regularizers.serialize(self.recurrent_regularizer),
                "bias_regularizer": regularizers.serialize(self.bias_regularizer),
                "kernel_constraint": constraints.serialize(self.kernel_constraint),
                "recurrent_constraint": constraints.serialize(self.recurrent_constraint),
                "bias_constraint": constraints.serialize(self.bias_constraint),
                "dropout": self.dropout, "recurrent_dropout": self.recurrent_dropout,
                "seed": self.seed}


def _is_shape_list(shape) -> bool:
    return isinstance(shape, (list, tuple)) and bool(shape) and \
        isinstance(shape[0], (list, tuple))
