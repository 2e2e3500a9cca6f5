"""Whole-sequence recurrent ops: ``lstm_sequence`` and ``gru_sequence`` (Keras's LSTM and GRU
cells with their default activations, tanh and sigmoid, over a whole sequence) and their
gradients ``lstm_sequence_grad`` / ``gru_sequence_grad``.

Why: a recurrent layer run as its step loop costs a few dozen small kernel calls per time
step, forward and backward. These ops run the whole sequence in one kernel call each way
(``backend/dnnl_rnn.py``: oneDNN's RNN primitives on the CPU, float32), so Keras's LSTM and
GRU layers use them where oneDNN runs them (``runs_fused``; the layers keep their step loop
elsewhere: GPU backends, other dtypes, oneDNN off). Where an op is given a case oneDNN
does not run, the same kernels compute it with the reference loop of
``backend/rnn_reference.py``, so the ops work on every backend and float dtype.

The forward has one more output than the layer needs, the workspace (uint8, gates and
states of every step, in the layout of the implementation that wrote it), which the
gradient op reads back; no gradient flows into it. Eager and graph mode run the same
kernels on the same arrays, so they give the same bits. The gradient ops have no gradient
themselves (no second order through a fused sequence, as through ``step_loop``).

Shapes (Keras's): ``x`` (batch, time, features); states (batch, units); ``kernel``
(features, G*units) and ``recurrent_kernel`` (units, G*units) with gate columns LSTM
i | f | c | o (G=4) and GRU z | r | h (G=3); ``bias`` (4*units,) for the LSTM, (3*units,)
for the GRU with ``reset_after=False`` and (2, 3*units) (input and recurrent biases) with
``reset_after=True``. ``y[:, t]`` is the output at input position ``t``; with ``reverse``
time runs from the last step to the first (Keras's ``go_backwards`` output is ``y``
reversed along time), and the final states are those after step 0.
"""
from __future__ import annotations

from ..core.tensor import Tensor
from ..backend import dnnl_rnn as kernels
from ..backend import get_backend
from ..dtypes import is_float
from ..errors import DTypeError, ShapeError, describe_shape
from .core import as_tensors
from ..core.op import Op, Spec, register_op

__all__ = ["lstm_sequence", "gru_sequence", "runs_fused"]


def runs_fused(x) -> bool:
    """Whether the fused sequence ops run on oneDNN for ``x`` (a concrete tensor's backend,
    or the active one while tracing): what the LSTM and GRU layers ask before using them."""
    backend = x.backend if isinstance(x, Tensor) else get_backend()
    return kernels.available(backend, x.dtype)


def _cell(op_name: str, reset_after) -> str:
    if op_name.startswith("lstm"):
        return "lstm"
    return "lbr_gru" if reset_after else "gru"


def _check(op: str, x, states, kernel, recurrent_kernel, bias, gates: int, reset_after):
    """Shape and dtype checks shared by the forward and gradient ops; (n, t, c, h)."""
    if len(x.shape) != 3:
        raise ShapeError(f"{op}: argument 'x' must have rank 3 (batch, time, features); "
                         f"received shape {describe_shape(x.shape)}")
    if not is_float(x.dtype):
        raise DTypeError(f"{op}: argument 'x' must be a float tensor; received {x.dtype}")
    n, t, c = x.shape
    if len(recurrent_kernel.shape) != 2:
        raise ShapeError(f"{op}: argument 'recurrent_kernel' must have rank 2 (units, "
                         f"{gates}*units); received {describe_shape(recurrent_kernel.shape)}")
    h = recurrent_kernel.shape[0]
    expected = {"kernel": (kernel, (c, gates * h)),
                "recurrent_kernel": (recurrent_kernel, (h, gates * h))}
    for name, state in states.items():
        expected[name] = (state, (n, h))
    if bias is not None:
        expected["bias"] = (bias, (2, 3 * h) if reset_after and gates == 3 else (gates * h,))
    for name, (t_, shape) in expected.items():
        if len(t_.shape) != len(shape) or any(
                a is not None and b is not None and a != b for a, b in zip(t_.shape, shape)):
            raise ShapeError(f"{op}: argument '{name}' must have shape "
                             f"{describe_shape(shape)}; received {describe_shape(t_.shape)}")
        if t_.dtype != x.dtype:
            raise DTypeError(f"{op}: argument '{name}' must have the dtype of 'x' "
                             f"({x.dtype}); received {t_.dtype}")
    return n, t, c, h


def _traced_zeros(g) -> bool:
    """Whether ``g`` is None or a traced ``zeros_like`` (graph autodiff's stand-in for an
    output without gradient); eager zeros are not looked at (same numbers either way)."""
    node = getattr(g, "node", None) if g is not None else None
    return g is None or (node is not None and node.op.name == "fill_like"
                         and node.attrs.get("value") == 0)


def _workspace(cell, n, t, c, h, dtype, reverse) -> Spec:
    if None in (n, t, c, h):
        return Spec((None,), "uint8")
    return Spec((kernels.workspace_bytes(cell, (n, t, c), h, dtype, reverse),), "uint8")


class _SequenceOp(Op):
    """A whole sequence: inputs ``(x, *states, kernel, recurrent_kernel[, bias])``, outputs
    ``(y, *final_states, workspace)``."""
    writes_out = True
    onednn_primitives = True
    states = ()               # names of the state inputs (and final-state outputs)
    gates = 0
    grad_op: Op = None

    def _split(self, inputs):
        k = len(self.states)
        x, states, (kernel, recurrent_kernel), bias = (
            inputs[0], inputs[1:1 + k], inputs[1 + k:3 + k], inputs[3 + k:])
        if len(bias) > 1:
            raise TypeError(f"{self.name}: expected at most one bias; received {len(bias)}")
        return x, states, kernel, recurrent_kernel, (bias[0] if bias else None)

    def output_spec(self, *inputs, reverse=False, reset_after=True):
        x, states, kernel, recurrent_kernel, bias = self._split(inputs)
        n, t, c, h = _check(self.name, x, dict(zip(self.states, states)), kernel,
                            recurrent_kernel, bias, self.gates, reset_after)
        state = Spec((n, h), x.dtype)
        return (Spec((n, t, h), x.dtype),) + (state,) * len(self.states) + (
            _workspace(_cell(self.name, reset_after), n, t, c, h, x.dtype, reverse),)

    def forward(self, backend, *arrays, out=None, reverse=False, reset_after=True):
        x, states, kernel, recurrent_kernel, bias = self._split(arrays)
        h0, c0 = states[0], (states[1] if len(states) > 1 else None)
        return kernels.rnn_forward(backend, _cell(self.name, reset_after), x, h0, c0, kernel,
                                   recurrent_kernel, bias, reverse, out)

    def gradient(self, ctx, *grads):
        # The workspace takes no gradient. An output without one (autodiff hands zeros,
        # e.g. the sequence of a layer returning its last output) is left out (``given``)
        # and the kernel reads zeros of its own: a traced step then fills no zero tensor.
        grads = [None if _traced_zeros(g) else g for g in grads[:-1]]
        given = tuple(g is not None for g in grads)
        x, states, kernel, recurrent_kernel, bias = self._split(ctx.inputs)
        bias = () if bias is None else (bias,)
        return self.grad_op(x, *states, kernel, recurrent_kernel, *ctx.outputs,
                            *[g for g in grads if g is not None], *bias, given=given,
                            **ctx.attrs)


class _SequenceGradOp(Op):
    """Inputs ``(x, *states, kernel, recurrent_kernel, y, *final_states, workspace,
    *output_grads[, bias])``, where ``output_grads`` are those of ``(y, *final_states)``
    that ``given`` marks True (the others are zeros); outputs the gradients of ``(x,
    *states, kernel, recurrent_kernel[, bias])``."""
    writes_out = True
    differentiable = False
    onednn_primitives = True
    forward_op: _SequenceOp = None

    def _split(self, inputs, given):
        k = len(self.forward_op.states)
        given = (True,) * (k + 1) if given is None else tuple(given)
        if len(given) != k + 1 or not any(given):
            raise ValueError(f"{self.name}: argument 'given' must hold {k + 1} bools, at "
                             f"least one True; received {given!r}")
        x, states = inputs[0], inputs[1:1 + k]
        kernel, recurrent_kernel = inputs[1 + k:3 + k]
        y, finals, ws = inputs[3 + k], inputs[4 + k:4 + 2 * k], inputs[4 + 2 * k]
        rest = list(inputs[5 + 2 * k:])
        grads = [rest.pop(0) if g else None for g in given]
        bias = rest[0] if rest else None
        return (x, states, kernel, recurrent_kernel, bias, y, finals, ws, grads[0],
                grads[1:])

    def output_spec(self, *inputs, reverse=False, reset_after=True, given=None):
        x, states, kernel, recurrent_kernel, bias, y, finals, _, dy, d_finals = \
            self._split(inputs, given)
        names = self.forward_op.states
        n, t, c, h = _check(self.name, x, dict(zip(names, states)), kernel,
                            recurrent_kernel, bias, self.forward_op.gates, reset_after)
        for name, value, shape in [("y", y, (n, t, h)), ("dy", dy, (n, t, h))] + [
                (f"d_{s}", d, (n, h)) for s, d in zip(names, d_finals)]:
            if value is not None and (len(value.shape) != len(shape) or any(
                    a is not None and b is not None and a != b
                    for a, b in zip(value.shape, shape))):
                raise ShapeError(f"{self.name}: argument '{name}' must have shape "
                                 f"{describe_shape(shape)}; received "
                                 f"{describe_shape(value.shape)}")
        specs = [x, *states, kernel, recurrent_kernel] + ([bias] if bias is not None else [])
        return tuple(Spec(tuple(s.shape), x.dtype) for s in specs)

    def forward(self, backend, *arrays, out=None, reverse=False, reset_after=True,
                given=None):
        x, states, kernel, recurrent_kernel, bias, y, finals, ws, dy, d_finals = \
            self._split(arrays, given)
        lstm = len(states) > 1
        return kernels.rnn_backward(
            backend, _cell(self.name, reset_after), x, states[0],
            states[1] if lstm else None, kernel, recurrent_kernel, bias, y, finals[0],
            finals[1] if lstm else None, ws, dy, d_finals[0],
            d_finals[1] if lstm else None, reverse, out)


@register_op
class LSTMSequence(_SequenceOp):
    """``(y, h_T, c_T, workspace) = lstm_sequence(x, h0, c0, kernel, recurrent_kernel[,
    bias], reverse=False)``."""
    name = "lstm_sequence"
    states = ("h0", "c0")
    gates = 4


@register_op
class LSTMSequenceGrad(_SequenceGradOp):
    name = "lstm_sequence_grad"
    forward_op = LSTMSequence


@register_op
class GRUSequence(_SequenceOp):
    """``(y, h_T, workspace) = gru_sequence(x, h0, kernel, recurrent_kernel[, bias],
    reset_after=True, reverse=False)``."""
    name = "gru_sequence"
    states = ("h0",)
    gates = 3


@register_op
class GRUSequenceGrad(_SequenceGradOp):
    name = "gru_sequence_grad"
    forward_op = GRUSequence


LSTMSequence.grad_op = LSTMSequenceGrad
GRUSequence.grad_op = GRUSequenceGrad


def lstm_sequence(x, h0, c0, kernel, recurrent_kernel, bias=None, reverse: bool = False):
    """An LSTM over the whole sequence ``x``: ``(y, h_T, c_T)`` (see the module docstring)."""
    inputs = as_tensors("lstm_sequence", x, h0, c0, kernel, recurrent_kernel,
                        *(() if bias is None else (bias,)))
    return LSTMSequence(*inputs, reverse=bool(reverse))[:3]


def gru_sequence(x, h0, kernel, recurrent_kernel, bias=None, reset_after: bool = True,
                 reverse: bool = False):
    """A GRU over the whole sequence ``x``: ``(y, h_T)`` (see the module docstring)."""
    inputs = as_tensors("gru_sequence", x, h0, kernel, recurrent_kernel,
                        *(() if bias is None else (bias,)))
    return GRUSequence(*inputs, reverse=bool(reverse), reset_after=bool(reset_after))[:2]
