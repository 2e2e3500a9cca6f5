"""scan and scan_grad as ops: a tanh RNN step run by one scan node, against numpy loops."""
import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.errors import ShapeError
from lamina.core.symbolic import SymbolicTensor
from lamina.ops.step_loop import ScanGrad, capture_step, scan
from tests.harness import case, rand, run_case

WRT = (0, 1, 2, 3, 4)


def _placeholder(like, drop_time=False):
    shape = (like.shape[0], *like.shape[2:]) if drop_time else like.shape
    return SymbolicTensor(shape, like.dtype)


def _rnn_body(x, h0, w, u, b, masked=False):
    """h' = tanh(x_t w + h u + b), kept where the mask is True; the step outputs h'."""
    x_t, h = _placeholder(x, drop_time=True), _placeholder(h0)
    keep = SymbolicTensor((x.shape[0],), "bool") if masked else None
    w_p, u_p, b_p = _placeholder(w), _placeholder(u), _placeholder(b)
    new = ops.tanh(ops.add(ops.add(ops.matmul(x_t, w_p), ops.matmul(h, u_p)), b_p))
    if masked:
        new = ops.where(ops.expand_dims(keep, -1), new, h)
    sequences = [x_t, keep] if masked else [x_t]
    body, captured = capture_step(sequences, [h], [new], [new], constants=[w_p, u_p, b_p])
    assert captured == []
    return body


def _scan_rnn(go_backwards=False):
    def fn(x, h0, w, u, b):
        finals, stacked = scan(_rnn_body(x, h0, w, u, b), [x], [h0], [w, u, b],
                               go_backwards=go_backwards)
        return finals[0], stacked[0]
    return fn


def _masked_scan_rnn(x, h0, w, u, b):
    keep = ops.convert_to_tensor(MASK)
    finals, stacked = scan(_rnn_body(x, h0, w, u, b, masked=True), [x, keep], [h0], [w, u, b])
    return finals[0], stacked[0]


def _np_rnn(x, h0, w, u, b, go_backwards=False, mask=None):
    h, hs = h0, []
    order = range(x.shape[1] - 1, -1, -1) if go_backwards else range(x.shape[1])
    for t in order:
        new = np.tanh(x[:, t] @ w + h @ u + b)
        h = new if mask is None else np.where(mask[:, t:t + 1], new, h)
        hs.append(h)
    return h, np.stack(hs, axis=1)


def _np_bptt(x, h0, w, u, b, dh, dys):
    """Gradients of <h_T, dh> + <ys, dys> for the forward-order tanh RNN."""
    hs = [h0] + list(np.moveaxis(_np_rnn(x, h0, w, u, b)[1], 1, 0))
    dx, dw, du, db = np.zeros_like(x), np.zeros_like(w), np.zeros_like(u), np.zeros_like(b)
    carry = dh
    for t in range(x.shape[1] - 1, -1, -1):
        da = (carry + dys[:, t]) * (1 - hs[t + 1] ** 2)
        dw += x[:, t].T @ da
        du += hs[t].T @ da
        db += da.sum(axis=0)
        dx[:, t] = da @ w.T
        carry = da @ u.T
    return dx, carry, dw, du, db


def _scan_grad(saved):
    def fn(x, h0, w, u, b, dh, dys):
        body = _rnn_body(x, h0, w, u, b)
        extra = []
        if saved:
            outputs = ops.OP_REGISTRY["step_loop"](x, h0, w, u, b, body=body, save=WRT)
            extra = list(outputs[2:])
        return ScanGrad(x, h0, w, u, b, dh, dys, *extra, body=body, wrt=WRT, saved=saved)
    return fn


MASK = np.array([[True, False, True], [False, True, True]])
INPUTS = [rand(2, 3, 2), rand(2, 3), rand(2, 3), rand(3, 3), rand(3)]
COTANGENTS = [rand(2, 3), rand(2, 3, 3)]

CASES = [
    case("step_loop", _scan_rnn(), lambda *a: _np_rnn(*a), INPUTS),
    case("step_loop", _scan_rnn(go_backwards=True), lambda *a: _np_rnn(*a, go_backwards=True),
         INPUTS, label="go_backwards"),
    case("step_loop", _masked_scan_rnn, lambda *a: _np_rnn(*a, mask=MASK), INPUTS, label="mask"),
    case("step_loop_grad", _scan_grad(saved=False), _np_bptt, INPUTS + COTANGENTS, grad=False),
    case("step_loop_grad", _scan_grad(saved=True), _np_bptt, INPUTS + COTANGENTS, grad=False,
         label="saved"),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


def _tensors(arrays, dtype="float32"):
    return [ops.convert_to_tensor(a, dtype=dtype) for a in arrays]


def test_scan_checks_its_inputs_against_the_step():
    x, h0, w, u, b = _tensors(INPUTS)
    body = _rnn_body(x, h0, w, u, b)
    op = ops.OP_REGISTRY["step_loop"]
    with pytest.raises(TypeError, match="attribute 'body' must be a StepBody"):
        op(x, h0, w, u, b, body="step")
    with pytest.raises(ValueError, match=r"1 sequences, 1 carries and 3 constants \(5 inputs\)"
                                         r"; received 4 inputs"):
        op(x, h0, w, u, body=body)
    with pytest.raises(ShapeError, match=r"sequence 0 must have shape \(batch, time, \.\.\.\)"):
        op(h0[0], h0, w, u, b, body=body)
    with pytest.raises(ShapeError, match=r"input 1 must be \(2, 3\) float32 as the step was "
                                         r"traced; received shape \(2, 4\) float32"):
        op(x, ops.zeros((2, 4)), w, u, b, body=body)
    with pytest.raises(ShapeError, match="a time step of sequence 0 must be"):
        op(ops.zeros((2, 3, 5)), h0, w, u, b, body=body)


def test_scan_needs_a_sequence():
    h = SymbolicTensor((2, 3), "float32")
    body, _ = capture_step([], [h], [ops.tanh(h)], [])
    with pytest.raises(ValueError, match="the step must read at least one sequence"):
        scan(body, [], [ops.zeros((2, 3))])


def test_scan_sequences_must_share_a_length():
    x, h0, w, u, b = _tensors(INPUTS)
    body = _rnn_body(x, h0, w, u, b, masked=True)
    with pytest.raises(ShapeError, match="all sequences must have 3 time steps"):
        scan(body, [x, ops.convert_to_tensor(np.ones((2, 4), bool))], [h0], [w, u, b])


def test_scan_grad_checks_wrt_counts_and_cotangents():
    x, h0, w, u, b = _tensors(INPUTS)
    dh, dys = _tensors(COTANGENTS)
    body = _rnn_body(x, h0, w, u, b)
    with pytest.raises(TypeError, match="attribute 'body' must be a StepBody"):
        ScanGrad(x, h0, w, u, b, dh, dys, body=None, wrt=WRT)
    with pytest.raises(ValueError, match=r"'wrt' must name inputs in \[0, 5\); received \(\)"):
        ScanGrad(x, h0, w, u, b, dh, dys, body=body, wrt=())
    with pytest.raises(ValueError, match="expected the scan's 5 inputs, 2 cotangents and 0 "
                                         "saved values; received 6"):
        ScanGrad(x, h0, w, u, b, dh, body=body, wrt=WRT)
    with pytest.raises(ShapeError, match=r"cotangent 1 must have shape \(2, 3, 3\)"):
        ScanGrad(x, h0, w, u, b, dh, dh, body=body, wrt=WRT)


def test_a_step_with_a_random_op_is_no_loop_body():
    # A draw whose counter is a carry differs every step: it cannot be hoisted, and a scan
    # node must never repeat (or a pass merge) a stateful op, so no body is made.
    x_t, counter = SymbolicTensor((2, 3), "float32"), SymbolicTensor((), "int64")
    noise = ops.OP_REGISTRY["random_uniform"](counter, shape=(2, 3), dtype="float32",
                                              key=(1, 0))
    assert capture_step([x_t], [counter], [ops.add(counter, 1)],
                        [ops.add(x_t, noise)]) is None


def test_scan_with_no_time_steps_returns_the_initial_carries():
    x, h0, w, u, b = _tensors(INPUTS)
    body = _rnn_body(x, h0, w, u, b)
    finals, stacked = scan(body, [ops.zeros((2, 0, 2))], [h0], [w, u, b])
    np.testing.assert_array_equal(finals[0].numpy(), h0.numpy())
    assert stacked[0].shape == (2, 0, 3)
