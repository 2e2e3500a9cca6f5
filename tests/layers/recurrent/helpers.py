"""Shared pieces of the recurrent tests: fresh layer arguments per case run, and numpy
references written from Keras's equations (keras/src/layers/rnn/*.py and
keras/src/backend/numpy/rnn.py)."""
import dataclasses

import numpy as np


class Make:
    """A layer argument of a LayerCase, built afresh for every run: a layer built on one
    backend cannot be reused on another."""

    def __init__(self, cls, *args, **kwargs):
        self.cls, self.args, self.kwargs = cls, args, kwargs

    def __call__(self):
        return self.cls(*self.args, **self.kwargs)

    def __repr__(self):
        args = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"{self.cls.__name__}({', '.join(args)})"


def fresh(case):
    """``case`` with every :class:`Make` in its kwargs replaced by a new instance."""
    def build(value):
        if isinstance(value, Make):
            return value()
        if isinstance(value, list):
            return [build(v) for v in value]
        return value
    return dataclasses.replace(case, kwargs={k: build(v) for k, v in case.kwargs.items()})


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def simple_rnn_step(weights):
    kernel, recurrent_kernel, bias = weights

    def step(x, states):
        h = np.tanh(x @ kernel + bias + states[0] @ recurrent_kernel)
        return h, [h]
    return step


def lstm_step(weights):
    """Keras's LSTMCell: gate columns i, f, c, o."""
    kernel, recurrent_kernel, bias = weights

    def step(x, states):
        h, c = states
        z = x @ kernel + h @ recurrent_kernel + bias
        z_i, z_f, z_c, z_o = np.split(z, 4, axis=-1)
        c = sigmoid(z_f) * c + sigmoid(z_i) * np.tanh(z_c)
        h = sigmoid(z_o) * np.tanh(c)
        return h, [h, c]
    return step


def gru_step(weights, reset_after=True):
    """Keras's GRUCell: gate columns z, r, h; h' = z * h + (1 - z) * candidate."""
    kernel, recurrent_kernel, bias = weights
    units = recurrent_kernel.shape[0]

    def step(x, states):
        h = states[0]
        input_bias = bias[0] if reset_after else bias
        x_z, x_r, x_h = np.split(x @ kernel + input_bias, 3, axis=-1)
        if reset_after:
            h_z, h_r, h_h = np.split(h @ recurrent_kernel + bias[1], 3, axis=-1)
            z, r = sigmoid(x_z + h_z), sigmoid(x_r + h_r)
            candidate = np.tanh(x_h + r * h_h)
        else:
            h_z, h_r = np.split(h @ recurrent_kernel[:, :2 * units], 2, axis=-1)
            z, r = sigmoid(x_z + h_z), sigmoid(x_r + h_r)
            candidate = np.tanh(x_h + (r * h) @ recurrent_kernel[:, 2 * units:])
        h = z * h + (1 - z) * candidate
        return h, [h]
    return step


def run(step, x, states, mask=None, go_backwards=False, zero_output_for_mask=False):
    """Keras's time loop: returns (last output, outputs in processing order, states).
    A masked step keeps the states and repeats the previous output (zeros with
    zero_output_for_mask); the previous output starts as the first state."""
    order = range(x.shape[1] - 1, -1, -1) if go_backwards else range(x.shape[1])
    previous, outputs = states[0], []
    for t in order:
        output, new_states = step(x[:, t], states)
        if mask is not None:
            keep = mask[:, t][:, None]
            output = np.where(keep, output, 0.0 if zero_output_for_mask else previous)
            new_states = [np.where(keep, n, s) for n, s in zip(new_states, states)]
        previous, states = output, new_states
        outputs.append(output)
    return outputs[-1], np.stack(outputs, axis=1), states


def random_weights(layer, rng, scale=0.5):
    """Random float64 values for every weight of a built ``layer``."""
    return [scale * rng.standard_normal(w.shape) for w in layer.weights]
