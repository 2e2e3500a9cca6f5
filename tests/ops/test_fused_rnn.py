"""The whole-sequence recurrent ops of lamina/ops/fused_rnn.py through the op harness:
forward against a numpy step loop (float64: the reference kernels; float32: oneDNN where
it loads, rtol 1e-5/atol 2e-6), gradients against float64 central differences, eager ==
graph. The gradient ops are covered by every gradient check here and by the cases that
call them directly."""
import numpy as np
import pytest

from lamina import ops
from lamina.errors import DTypeError, ShapeError
from lamina.ops import fused_rnn
from tests.harness import case, rand, run_case

N, T, C, H = 2, 3, 3, 2


def _sigmoid(a):
    return 1 / (1 + np.exp(-a))


def ref_lstm(reverse=False):
    def ref(x, h, c, kernel, recurrent_kernel, bias=None):
        y = np.zeros(x.shape[:2] + (h.shape[1],))
        steps = range(x.shape[1] - 1, -1, -1) if reverse else range(x.shape[1])
        for t in steps:
            z = x[:, t] @ kernel + h @ recurrent_kernel + (0 if bias is None else bias)
            i, f, g, o = np.split(z, 4, axis=-1)
            c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
            h = y[:, t] = _sigmoid(o) * np.tanh(c)
        return y, h, c
    return ref


def ref_gru(reset_after=True, reverse=False):
    def ref(x, h, kernel, recurrent_kernel, bias=None):
        units = h.shape[1]
        y = np.zeros(x.shape[:2] + (units,))
        b_in = b_rec = 0
        if bias is not None:
            b_in, b_rec = (bias[0], bias[1]) if reset_after else (bias, 0)
        steps = range(x.shape[1] - 1, -1, -1) if reverse else range(x.shape[1])
        for t in steps:
            xz, xr, xh = np.split(x[:, t] @ kernel + b_in, 3, axis=-1)
            uz, ur, uh = np.split(recurrent_kernel, 3, axis=-1)
            if reset_after:
                hz, hr, hh_ = np.split(h @ recurrent_kernel + b_rec, 3, axis=-1)
                z, r = _sigmoid(xz + hz), _sigmoid(xr + hr)
                hh = np.tanh(xh + r * hh_)
            else:
                z, r = _sigmoid(xz + h @ uz), _sigmoid(xr + h @ ur)
                hh = np.tanh(xh + (r * h) @ uh)
            h = y[:, t] = z * h + (1 - z) * hh
        return y, h
    return ref


def _lstm(reverse=False):
    return lambda *a: fused_rnn.lstm_sequence(*a, reverse=reverse)


def _gru(reset_after=True, reverse=False):
    return lambda *a: fused_rnn.gru_sequence(*a, reset_after=reset_after, reverse=reverse)


def _lstm_inputs(bias=True):
    return [rand(N, T, C), rand(N, H, low=-0.5, high=0.5), rand(N, H, low=-0.5, high=0.5),
            rand(C, 4 * H), rand(H, 4 * H)] + ([rand(4 * H)] if bias else [])


def _gru_inputs(reset_after=True, bias=True):
    b = rand(2, 3 * H) if reset_after else rand(3 * H)
    return [rand(N, T, C), rand(N, H, low=-0.5, high=0.5), rand(C, 3 * H),
            rand(H, 3 * H)] + ([b] if bias else [])


def _grad_op(forward_op, grad_op, states):
    """The gradient op itself, on the forward op's outputs and unit output gradients."""
    def fn(*inputs):
        full = forward_op(*inputs)
        x, state, weights, bias = (inputs[0], inputs[1:1 + states],
                                   inputs[1 + states:3 + states], inputs[3 + states:])
        ones = [ops.ones_like(o) for o in full[:-1]]
        return grad_op(x, *state, *weights, *full[:-1], full[-1], *ones, *bias)
    return fn


TOL = dict(fwd_rtol32=1e-5, fwd_atol32=2e-6)
CASES = [
    case("lstm_sequence", _lstm(), ref_lstm(), _lstm_inputs(), label="bias", **TOL),
    case("lstm_sequence", _lstm(reverse=True), ref_lstm(reverse=True), _lstm_inputs(False),
         label="reverse-no-bias", **TOL),
    case("gru_sequence", _gru(), ref_gru(), _gru_inputs(), label="reset-after", **TOL),
    case("gru_sequence", _gru(reverse=True), ref_gru(reverse=True), _gru_inputs(bias=False),
         label="reset-after-reverse-no-bias", **TOL),
    case("gru_sequence", _gru(False), ref_gru(False), _gru_inputs(False),
         label="reset-before", **TOL),
    case("gru_sequence", _gru(False, True), ref_gru(False, True), _gru_inputs(False, False),
         label="reset-before-reverse-no-bias", **TOL),
    case("lstm_sequence_grad", _grad_op(fused_rnn.LSTMSequence, fused_rnn.LSTMSequenceGrad,
                                        2), None, _lstm_inputs(), grad=False),
    case("gru_sequence_grad", _grad_op(fused_rnn.GRUSequence, fused_rnn.GRUSequenceGrad, 1),
         None, _gru_inputs(), grad=False),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


def test_shape_and_dtype_errors_name_the_op_and_argument():
    x = ops.zeros((2, 3, 4))
    h = ops.zeros((2, 5))
    with pytest.raises(ShapeError, match="lstm_sequence: argument 'kernel'"):
        fused_rnn.lstm_sequence(x, h, h, ops.zeros((3, 20)), ops.zeros((5, 20)))
    with pytest.raises(ShapeError, match="gru_sequence: argument 'bias' must have shape"):
        fused_rnn.gru_sequence(x, h, ops.zeros((4, 15)), ops.zeros((5, 15)),
                               ops.zeros((15,)), reset_after=True)
    with pytest.raises(ShapeError, match="argument 'x' must have rank 3"):
        fused_rnn.gru_sequence(ops.zeros((2, 4)), h, ops.zeros((4, 15)), ops.zeros((5, 15)))
    with pytest.raises(DTypeError, match="argument 'h0' must have the dtype of 'x'"):
        fused_rnn.GRUSequence(x, ops.zeros((2, 5), dtype="float64"), ops.zeros((4, 15)),
                              ops.zeros((5, 15)))
    with pytest.raises(DTypeError, match="gru_sequence: argument 'x' must be a float"):
        fused_rnn.GRUSequence(ops.zeros((2, 3, 4), dtype="int32"), h, ops.zeros((4, 15)),
                              ops.zeros((5, 15)))
    with pytest.raises(ShapeError, match="argument 'recurrent_kernel' must have rank 2"):
        fused_rnn.LSTMSequence(x, h, h, ops.zeros((4, 20)), ops.zeros((20,)))
    with pytest.raises(TypeError, match="lstm_sequence: expected at most one bias"):
        fused_rnn.LSTMSequence(x, h, h, ops.zeros((4, 20)), ops.zeros((5, 20)),
                               ops.zeros((20,)), ops.zeros((20,)))


def test_gradient_op_checks_the_forward_results_it_is_given():
    x, h = ops.zeros((2, 3, 4)), ops.zeros((2, 5))
    kernel, recurrent_kernel = ops.zeros((4, 15)), ops.zeros((5, 15))
    y, h_t, ws = fused_rnn.GRUSequence(x, h, kernel, recurrent_kernel)
    with pytest.raises(ShapeError, match="gru_sequence_grad: argument 'dy' must have shape"):
        fused_rnn.GRUSequenceGrad(x, h, kernel, recurrent_kernel, y, h_t, ws,
                                  ops.zeros((2, 3, 4)), h_t)
    with pytest.raises(ShapeError, match="argument 'd_h0' must have shape"):
        fused_rnn.GRUSequenceGrad(x, h, kernel, recurrent_kernel, y, h_t, ws, y,
                                  ops.zeros((2, 4)))


def test_workspace_takes_no_gradient_and_specs_leave_the_batch_open():
    from lamina.core.symbolic import SymbolicTensor
    x = SymbolicTensor((None, 3, 4), "float32")
    h = SymbolicTensor((None, 5), "float32")
    specs = fused_rnn.LSTMSequence.output_spec(
        x, h, h, SymbolicTensor((4, 20), "float32"), SymbolicTensor((5, 20), "float32"))
    assert [tuple(s.shape) for s in specs] == [(None, 3, 5), (None, 5), (None, 5), (None,)]
    assert specs[-1].dtype == "uint8"


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_output_gradients_not_given_are_zeros(dtype):
    inputs = [ops.convert_to_tensor(a, dtype=dtype) for a in _lstm_inputs()]
    x, h0, c0, kernel, recurrent_kernel, bias = inputs
    outs = fused_rnn.LSTMSequence(*inputs)
    dh = ops.ones_like(outs[1])
    full = fused_rnn.LSTMSequenceGrad(x, h0, c0, kernel, recurrent_kernel, *outs,
                                      ops.zeros_like(outs[0]), dh, ops.zeros_like(outs[2]),
                                      bias)
    partial = fused_rnn.LSTMSequenceGrad(x, h0, c0, kernel, recurrent_kernel, *outs, dh,
                                         bias, given=(False, True, False))
    for a, b in zip(full, partial):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    with pytest.raises(ValueError, match="lstm_sequence_grad: argument 'given' must hold 3"):
        fused_rnn.LSTMSequenceGrad(x, h0, c0, kernel, recurrent_kernel, *outs, bias,
                                   given=(False, False, False))


def test_float32_with_onednn_off_runs_the_reference_into_the_promised_workspace():
    from lamina.backend import get_backend
    inputs = [ops.convert_to_tensor(a, dtype="float32") for a in _gru_inputs()]
    on = fused_rnn.GRUSequence(*inputs)
    backend = get_backend("numpy")
    backend.onednn = False
    try:
        off = fused_rnn.GRUSequence(*inputs)     # the tests check outputs against specs
        grads = fused_rnn.GRUSequenceGrad(*inputs[:4], *off, off[0], off[1], inputs[4])
    finally:
        backend.onednn = True
    assert off[-1].shape == on[-1].shape
    for a, b in zip(on[:-1], off[:-1]):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)
    assert [tuple(g.shape) for g in grads] == [tuple(t.shape) for t in inputs]
