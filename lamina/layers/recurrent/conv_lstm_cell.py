"""``ConvLSTMCell``: one step of a convolutional LSTM (Shi et al. 2015), the cell of
ConvLSTM1D/2D/3D (private, as in Keras)."""
from __future__ import annotations

from ... import activations, ops
from ..convolutional import conv_utils as cu
from .base_cell import RNNCellBase


def convolve(x, kernel, strides, padding, dilation_rate):
    """A channels-last convolution of spatial rank 1, 2 or 3."""
    rank = len(x.shape) - 2
    if rank == 1:
        return ops.conv1d(x, kernel, strides=strides, padding=padding,
                          dilation_rate=dilation_rate)
    if rank == 2:
        return ops.conv2d(x, kernel, strides=strides, padding=padding,
                          dilation_rate=dilation_rate)
    return _conv3d_by_slices(x, kernel, strides, padding, dilation_rate)


def _conv3d_by_slices(x, kernel, strides, padding, dilation_rate):
    """NDHWC ``x`` with a DHWIO ``kernel``: each output depth slice is the sum over the
    depth taps of 2-D convolutions of single input slices. Unlike ``Conv3D``'s kernel it
    never folds the depth into the batch axis, which a recurrent step (a scan body,
    where the unknown batch size sizes the buffers) cannot do."""
    depth, kd = x.shape[1], kernel.shape[0]
    sd, dd = strides[0], dilation_rate[0]
    out_depth = cu.conv_output_length(depth, kd, sd, dd, padding)
    if padding == "same":
        total = max((out_depth - 1) * sd + (kd - 1) * dd + 1 - depth, 0)
        x = ops.pad(x, ((0, 0), (total // 2, total - total // 2), (0, 0), (0, 0), (0, 0)))
    slices = []
    for o in range(out_depth):
        total = None
        for i in range(kd):
            z = ops.conv2d(x[:, o * sd + i * dd], kernel[i], strides=strides[1:],
                           padding=padding, dilation_rate=dilation_rate[1:])
            total = z if total is None else ops.add(total, z)
        slices.append(total)
    return ops.stack(slices, axis=1)


class ConvLSTMCell(RNNCellBase):
    """The LSTM step with convolutions for products (Keras's ``ConvLSTMCell``)::

        z = conv(x, kernel) + bias + conv_same(h, recurrent_kernel)    # channels i|f|c|o
        c' = sigmoid(z_f) * c + sigmoid(z_i) * tanh(z_c);  h' = sigmoid(z_o) * tanh(c')

    The input convolution uses the layer's strides, padding and dilation; the recurrent one
    stride 1 and 'same' padding. Weights: ``kernel`` (*kernel_size, channels, 4*filters),
    ``recurrent_kernel`` (*kernel_size, filters, 4*filters), ``bias`` (4*filters,).
    States ``[h, c]``, each shaped like one output step.
    """

    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid",
                 data_format=None, dilation_rate=1, activation="tanh",
                 recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", unit_forget_bias=True, kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, **kwargs):
        super().__init__(filters, activation=activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer,
                         recurrent_initializer=recurrent_initializer,
                         bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer,
                         recurrent_regularizer=recurrent_regularizer,
                         bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
                         recurrent_constraint=recurrent_constraint,
                         bias_constraint=bias_constraint, dropout=dropout,
                         recurrent_dropout=recurrent_dropout, seed=seed, **kwargs)
        name = self.name
        self.rank = rank
        self.filters = self.units
        self.kernel_size = cu.standardize_tuple(name, "kernel_size", kernel_size, rank)
        self.strides = cu.standardize_tuple(name, "strides", strides, rank)
        self.dilation_rate = cu.standardize_tuple(name, "dilation_rate", dilation_rate, rank)
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(f"{name}: Specifying `strides > 1` is not compatible with "
                             f"`dilation_rate > 1` (Keras refuses the pair); received "
                             f"strides={self.strides}, dilation_rate={self.dilation_rate}")
        self.padding = cu.standardize_padding(name, padding)
        self.data_format = cu.standardize_data_format(name, data_format)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.unit_forget_bias = bool(unit_forget_bias)
        self.state_size = [self.filters, self.filters]
        self.dropout_mask_count = 4          # one mask per gate, as Keras's cell
        self.spatial_dims = None

    def build(self, input_shape):
        input_shape = tuple(input_shape)
        spatial = cu.spatial_dims(input_shape, self.data_format)
        channels = input_shape[cu.channel_axis(self.data_format)]
        if None in spatial or channels is None:
            raise ValueError(f"{self.name}: ConvLSTM layers need static spatial and channel "
                             f"dimensions; received step input shape {input_shape}")
        self.spatial_dims, self.input_dim = tuple(spatial), channels
        self.kernel = self.add_weight(
            shape=self.kernel_size + (channels, 4 * self.filters), name="kernel",
            initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight(
            shape=self.kernel_size + (self.filters, 4 * self.filters),
            name="recurrent_kernel", initializer=self.recurrent_initializer,
            regularizer=self.recurrent_regularizer, constraint=self.recurrent_constraint)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(shape=(4 * self.filters,), name="bias",
                                        initializer=self._bias_initializer(),
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)

    def _bias_initializer(self):
        if not self.unit_forget_bias:
            return self.bias_initializer

        def forget_ones(shape, dtype=None):
            filters = self.filters
            return ops.concatenate([self.bias_initializer((filters,), dtype=dtype),
                                    ops.ones((filters,), dtype=dtype),
                                    self.bias_initializer((2 * filters,), dtype=dtype)])
        return forget_ones

    def _gates(self, x, kernel, masks, strides, padding, dilation):
        """The four gates' convolutions of ``x`` (each of its own masked copy in training),
        concatenated on the channel axis."""
        if masks is None:
            return convolve(x, kernel, strides, padding, dilation)
        blocks = ops.split(kernel, 4, axis=-1)
        return ops.concatenate([convolve(ops.multiply(x, m), k, strides, padding, dilation)
                                for m, k in zip(masks, blocks)], axis=-1)

    def call(self, inputs, states=None, training=None):
        inputs, states = self._unpack(inputs, states)
        x = cu.to_channels_last(inputs, self.data_format)
        h_tm1 = cu.to_channels_last(states[0], self.data_format)
        c_tm1 = cu.to_channels_last(states[1], self.data_format)
        input_masks, recurrent_masks = self._masks(x, h_tm1, training)
        z = self._gates(x, self.kernel, input_masks, self.strides, self.padding,
                        self.dilation_rate)
        if self.bias is not None:
            z = ops.add(z, self.bias)
        ones = (1,) * self.rank
        z = ops.add(z, self._gates(h_tm1, self.recurrent_kernel, recurrent_masks, ones,
                                   "same", ones))
        z_i, z_f, z_c, z_o = ops.split(z, 4, axis=-1)
        i = self.recurrent_activation(z_i)
        f = self.recurrent_activation(z_f)
        c = ops.add(ops.multiply(f, c_tm1), ops.multiply(i, self.activation(z_c)))
        h = ops.multiply(self.recurrent_activation(z_o), self.activation(c))
        h = cu.from_channels_last(h, self.data_format)
        c = cu.from_channels_last(c, self.data_format)
        return h, [h, c]

    def output_spatial(self, spatial) -> tuple:
        return tuple(cu.conv_output_length(size, k, s, d, self.padding) for size, k, s, d in
                     zip(spatial, self.kernel_size, self.strides, self.dilation_rate))

    def step_output_shape(self, batch, spatial) -> tuple:
        return cu.with_spatial(batch, self.output_spatial(spatial), self.filters,
                               self.data_format)

    def get_initial_state(self, batch_size=None):
        shape = self.step_output_shape(batch_size, self.spatial_dims)
        return [ops.zeros(shape, dtype=self.compute_dtype) for _ in range(2)]

    def get_config(self) -> dict:
        config = super().get_config()
        config.pop("units")
        return {**config, "rank": self.rank, "filters": self.filters,
                "kernel_size": self.kernel_size, "strides": self.strides,
                "padding": self.padding, "data_format": self.data_format,
                "dilation_rate": self.dilation_rate,
                "recurrent_activation": activations.serialize(self.recurrent_activation),
                "unit_forget_bias": self.unit_forget_bias}
